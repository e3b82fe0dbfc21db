// Whether the process named in a lock file still runs. A pid only means something inside
// the pid namespace and boot it was taken in, so a lock records that "scope" and a pid is
// checked only within it; a pid that was reused by a younger process does not count.
import { readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';

/** Linux reports process start times in USER_HZ ticks, 100 per second on every ABI. */
const USER_HZ = 100;

function readOrNull(read: () => string): string | null {
  try {
    return read().trim();
  } catch {
    return null;
  }
}

let scope: string | null = null;

/**
 * Where this process's pids are valid: on Linux the boot id and the pid namespace (two
 * containers on one machine, or one machine before and after a reboot, differ), elsewhere
 * the host name.
 */
export function processScope(): string {
  if (scope !== null) return scope;
  const bootId = readOrNull(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
  const pidNs = readOrNull(() => readlinkSync('/proc/self/ns/pid'));
  scope = bootId && pidNs ? `linux:${bootId}:${pidNs}` : `host:${os.hostname()}`;
  return scope;
}

/** Does a process with this pid exist (in this scope)? EPERM: it exists, owned by another user. */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When the process with this pid started (epoch ms), where the system says (Linux); else null. */
export function processStartedAtMs(pid: number): number | null {
  const stat = readOrNull(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  const btime = readOrNull(() => readFileSync('/proc/stat', 'utf8'))?.match(/^btime (\d+)$/m)?.[1];
  if (!stat || !btime) return null;
  // Fields after "(comm)"; comm may hold spaces and parentheses, hence the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const startTicks = Number(fields[19]); // field 22 of the whole line
  if (!Number.isFinite(startTicks)) return null;
  return (Number(btime) + startTicks / USER_HZ) * 1000;
}

/** This process's start time, epoch ms (what a lock records as startedAt). */
export function ownStartedAtMs(): number {
  return Math.round(Date.now() - process.uptime() * 1000);
}

/** Clock granularity of /proc start times plus clock adjustments since. */
const START_TIME_TOLERANCE_MS = 5_000;

/**
 * Is the process that wrote (pid, startedAt) still running? False when the pid is gone, or
 * when it now belongs to a process that started after the one that wrote the lock.
 */
export function processStillRuns(pid: number, startedAtMs: number): boolean {
  if (!pidExists(pid)) return false;
  const startedAt = processStartedAtMs(pid);
  return startedAt === null || startedAt <= startedAtMs + START_TIME_TOLERANCE_MS;
}
