// What `docparse parse` shows while it works: on a terminal, one bar per file (cli-progress)
// that counts the bytes sent, then shows the job's state; elsewhere (a pipe, a log) plain
// lines, one per step, so nothing is redrawn; nothing at all with --json.
import cliProgress from 'cli-progress';
import { terminalSafe } from '../../http/text-rules.js';
import type { Out } from '../command-output.js';

export interface ParseProgress {
  start(file: string, totalBytes: number): void;
  sent(file: string, sentBytes: number): void;
  /** The job's state name, or a failure. */
  state(file: string, state: string, final?: boolean): void;
  stop(): void;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

export function terminalBars(stream: NodeJS.WriteStream, files: string[]): ParseProgress {
  const width = Math.min(40, Math.max(...files.map((f) => f.length)));
  const multi = new cliProgress.MultiBar(
    { stream, format: '{file} [{bar}] {percentage}% {info}', barsize: 24, hideCursor: true, clearOnComplete: false, autopadding: true },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgress.SingleBar>();
  // The bars hide the cursor: Ctrl-C gives it back before the process ends (128 + SIGINT).
  const onInterrupt = () => {
    multi.stop();
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  // Bars are redrawn on a timer (10 fps); a phase's start and end are drawn at once, so even
  // a small file's upload shows before its state replaces it.
  const drawNow = () => multi.update();
  const label = (f: string) => terminalSafe(f.length > width ? `…${f.slice(-(width - 1))}` : f.padEnd(width));
  return {
    start(file, total) {
      bars.set(file, multi.create(Math.max(total, 1), 0, { file: label(file), info: `0 B/${bytes(total)}` }));
      drawNow();
    },
    sent(file, sent) {
      const bar = bars.get(file)!;
      bar.update(sent, { info: `${bytes(sent)}/${bytes(bar.getTotal())}` });
      if (sent >= bar.getTotal()) drawNow();
    },
    state(file, state) {
      const bar = bars.get(file)!;
      bar.update(bar.getTotal(), { info: terminalSafe(state) });
      drawNow();
    },
    stop() {
      process.removeListener('SIGINT', onInterrupt);
      multi.stop();
    },
  };
}

export function plainLines(out: Out): ParseProgress {
  const last = new Map<string, string>();
  return {
    start(file, total) {
      out(`${file}: uploading ${bytes(total)}`);
    },
    sent() {},
    state(file, state) {
      if (last.get(file) === state) return;
      last.set(file, state);
      out(`${file}: ${state}`);
    },
    stop() {},
  };
}

export const silent: ParseProgress = { start() {}, sent() {}, state() {}, stop() {} };
