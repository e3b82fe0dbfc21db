// LibreOffice headless as a converter (legacy binaries, RTF, OpenDocument → OOXML) and as a
// renderer (→ PDF, to count pages exactly). Every concurrent soffice process gets its own
// user profile (soffice hands work to a running instance that shares one), macros are
// disabled in that profile, each run is bounded by a timeout that kills the whole process
// group (soffice → oosplash → soffice.bin), the group dies with the process that holds it
// (process-groups.ts), and the output is checked because soffice exits 0 even when it failed.
import { readdirSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { ExtractionError } from '../kit/types.js';
import { runProcessGroup } from '../process-groups.js';
import { sofficePath } from '../kit/engine-locations.js';
import { sofficeEnvironment } from '../kit/soffice-env.js';
import { engineUnavailable } from '../kit/engine-unavailable.js';
import type { EngineLocations, ParserSettings } from '../settings.js';

/** What running LibreOffice takes: where it is looked for, and how long a conversion may run. */
export interface LibreOfficeRun {
  engines: EngineLocations;
  /** DOCPARSE_SOFFICE_TIMEOUT_MS. */
  timeoutMs: number;
}

/** The run a parser's settings describe. */
export const libreOfficeRun = (s: ParserSettings): LibreOfficeRun => ({ engines: s.engines, timeoutMs: s.office.convertTimeoutMs });

/** Whether this node has soffice (DOCPARSE_SOFFICE alone when set, else the usual places and PATH). */
export function libreOfficeAvailable(engines: EngineLocations): boolean {
  return sofficePath(engines) !== null;
}

// Macro security "very high" and macro execution disabled for every profile we create.
const REGISTRY = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="UseDocumentSystemFileLocking" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
`;

/** Profiles not in use, reused across jobs of this thread (first start of a profile is slow). */
const idleProfiles: string[] = [];
const allProfiles = new Set<string>();
let profileSeq = 0;
let cleanupHooked = false;

const PROFILE_ROOT = path.join(os.tmpdir(), 'docparse-lo');

function hookCleanup(): void {
  if (cleanupHooked) return;
  cleanupHooked = true;
  process.once('exit', () => {
    for (const d of allProfiles) rmSync(d, { recursive: true, force: true });
  });
  // Profiles of processes that died without their exit hook (killed workers) are removed by
  // the next process that starts LibreOffice.
  try {
    for (const name of readdirSync(PROFILE_ROOT)) {
      const pid = Number(name.split('-')[0]);
      if (!Number.isInteger(pid) || pid === process.pid) continue;
      try {
        process.kill(pid, 0);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ESRCH') rmSync(path.join(PROFILE_ROOT, name), { recursive: true, force: true });
      }
    }
  } catch {
    /* no profile root yet */
  }
}

async function takeProfile(): Promise<string> {
  const p = idleProfiles.pop();
  if (p) return p;
  const dir = path.join(PROFILE_ROOT, `${process.pid}-${threadId}-${profileSeq++}`);
  hookCleanup();
  allProfiles.add(dir);
  await fs.mkdir(path.join(dir, 'user'), { recursive: true });
  await fs.writeFile(path.join(dir, 'user', 'registrymodifications.xcu'), REGISTRY);
  return dir;
}

function releaseProfile(dir: string, healthy: boolean): void {
  if (healthy) idleProfiles.push(dir);
  else {
    allProfiles.delete(dir);
    void fs.rm(dir, { recursive: true, force: true });
  }
}

export interface ConvertResult {
  outputPath: string;
  millis: number;
}

/**
 * Converts `inputPath` to `target` (a soffice --convert-to spec such as 'pdf', 'docx',
 * 'xlsx', 'pptx') inside `outDir`. `inputExt` forces the file name the filter detection
 * sees (soffice guesses from the extension as well as the content).
 */
export async function convert(inputPath: string, target: string, outDir: string, lo: LibreOfficeRun, opts: { inputExt?: string } = {}): Promise<ConvertResult> {
  const bin = sofficePath(lo.engines);
  if (!bin) {
    const ext = (opts.inputExt ?? path.extname(inputPath).slice(1)).toUpperCase();
    throw engineUnavailable('LibreOffice', ext ? `for ${ext} documents` : 'for this document');
  }
  const started = Date.now();
  await fs.mkdir(outDir, { recursive: true });
  // Copy to a neutral name so odd characters or a misleading extension do not confuse soffice.
  const stem = `in-${Math.random().toString(36).slice(2, 10)}`;
  const ext = opts.inputExt ?? path.extname(inputPath).slice(1);
  // The input lives in its own folder so an output of the same extension cannot overwrite it.
  const srcDir = path.join(outDir, `src-${stem}`);
  await fs.mkdir(srcDir, { recursive: true });
  const src = path.join(srcDir, `${stem}.${ext || 'bin'}`);
  await fs.copyFile(inputPath, src);
  const targetExt = target.split(':')[0];
  const expected = path.join(outDir, `${stem}.${targetExt}`);
  const profile = await takeProfile();
  let healthy = true;
  try {
    const args = [
      `-env:UserInstallation=file://${profile}`,
      '--headless',
      '--invisible',
      '--norestore',
      '--nodefault',
      '--nolockcheck',
      '--nologo',
      '--convert-to',
      target,
      '--outdir',
      outDir,
      src,
    ];
    const timeoutMs = lo.timeoutMs;
    const { code, stderr, timedOut } = await runProcessGroup({ command: bin, args, env: sofficeEnvironment(), timeoutMs }).catch((err: unknown) => {
      throw new ExtractionError('LibreOffice could not be started on this node.', 'extraction_failed', false, { cause: err });
    });
    if (timedOut) {
      healthy = false;
      throw new ExtractionError(`LibreOffice did not finish converting within ${Math.round(timeoutMs / 1000)} s`);
    }
    const st = await fs.stat(expected).catch(() => null);
    if (!st || st.size === 0) {
      healthy = code === 0;
      const why = stderr
        .split('\n')
        .filter((l) => l.trim() && !/javaldx/.test(l))
        .slice(-3)
        .join(' | ');
      // LibreOffice's own stderr (file paths of this node, its internals) goes to the log only.
      throw new ExtractionError(`LibreOffice could not read the document (it wrote no ${targetExt.toUpperCase()} output).`, 'extraction_failed', false, {
        cause: why || `exit code ${code}`,
      });
    }
    return { outputPath: expected, millis: Date.now() - started };
  } finally {
    releaseProfile(profile, healthy);
    await fs.rm(srcDir, { recursive: true, force: true });
  }
}

/** Pages of a PDF written by LibreOffice (page objects; LO writes no object streams). */
export async function countPdfPages(pdfPath: string): Promise<number> {
  const buf = await fs.readFile(pdfPath);
  const s = buf.toString('latin1');
  const n = (s.match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
  if (n > 0) return n;
  // Fallback: the largest /Count of a page tree node.
  let max = 0;
  for (const m of s.matchAll(/\/Type\s*\/Pages[^>]*?\/Count\s+(\d+)/g)) max = Math.max(max, Number(m[1]));
  return max;
}

/**
 * Renders to PDF, counts the pages and hands the PDF to `read` (its page texts, for the page
 * of each block) before it is removed.
 */
export async function renderLayout<T>(
  inputPath: string,
  workDir: string,
  lo: LibreOfficeRun,
  inputExt: string | undefined,
  read: (pdfPath: string) => Promise<T>,
): Promise<{ pages: number; millis: number; read: T }> {
  const r = await convert(inputPath, 'pdf', path.join(workDir, `render-${Math.random().toString(36).slice(2, 8)}`), lo, { inputExt });
  try {
    const pages = await countPdfPages(r.outputPath);
    if (pages < 1) throw new ExtractionError('LibreOffice rendered no pages');
    return { pages, millis: r.millis, read: await read(r.outputPath) };
  } finally {
    await fs.rm(path.dirname(r.outputPath), { recursive: true, force: true });
  }
}
