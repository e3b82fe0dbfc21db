// LibreOffice's version, from `soffice --version` (the one answer every kind of install
// gives; it takes from ~0.1 s to over a second, so the node asks once, in the background, at
// start). Run in a process group of its own that dies with the node, killed if it does not
// answer in time.
import { sofficeEnvironment } from '../formats/kit/soffice-env.js';
import { killProcessGroup, spawnTiedGroup } from '../formats/process-groups.js';

const PROBE_TIMEOUT_MS = 15_000;

/** 'LibreOffice 7.4.7.2 40(Build:2)' → 'LibreOffice 7.4.7.2'; null when it says no version. */
export function parseSofficeVersion(output: string): string | null {
  const line =
    output
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  const m = /^(.*?\d+(?:\.\d+)+)/.exec(line);
  return m ? m[1] : null;
}

/** The version `soffice --version` prints, or null when it fails or does not answer. */
export function probeLibreOfficeVersion(soffice: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<string | null> {
  return new Promise((resolve) => {
    // HOME and the headless plugin as for conversions: soffice writes caches under HOME.
    const child = spawnTiedGroup(soffice, ['--version'], sofficeEnvironment());
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      if (out.length < 4096) out += d.toString();
    });
    child.stderr!.resume();
    const timer = setTimeout(() => child.pid && killProcessGroup(child.pid), timeoutMs);
    // A probe never keeps the process alive.
    timer.unref();
    child.unref();
    for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
    child.on('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? parseSofficeVersion(out) : null);
    });
  });
}
