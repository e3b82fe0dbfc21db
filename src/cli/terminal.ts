// Writing to the terminal of the person who started the process, never to stdout (where the
// JSON log stream goes and log collectors keep it).
import fs from 'node:fs';

/** stderr when it is a terminal, else the controlling terminal; false when there is none. */
export function toTerminal(text: string): boolean {
  if (process.stderr.isTTY) {
    process.stderr.write(text);
    return true;
  }
  let fd: number;
  try {
    fd = fs.openSync('/dev/tty', 'w');
  } catch {
    return false;
  }
  try {
    fs.writeSync(fd, text);
    return true;
  } catch {
    return false;
  } finally {
    fs.closeSync(fd);
  }
}

export function hasTerminal(): boolean {
  if (process.stderr.isTTY) return true;
  try {
    fs.closeSync(fs.openSync('/dev/tty', 'w'));
    return true;
  } catch {
    return false;
  }
}
