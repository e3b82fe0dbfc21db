// Whether the data dir's filesystem makes every new file dear. ext4 mounted without a journal
// checks each candidate inode for a recent deletion when it makes a file (recently_deleted() in
// the kernel's inode allocator), so a job's files cost the kernel 10–20× more CPU than on a
// journaled ext4, and more the faster retention deletes (docs/operations.md,
// bench/storage/inode-cost.mjs). Linux only; anywhere it cannot tell, it says nothing.
import { existsSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';

/** The kernel's name of the block device holding dir ('vda', 'dm-0', 'loop0'), or null. */
export function blockDeviceOf(dir: string): string | null {
  try {
    const dev = statSync(dir, { bigint: true }).dev;
    // glibc's gnu_dev_major/minor: the device number's two halves are interleaved.
    const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
    const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
    return path.basename(readlinkSync(`/sys/dev/block/${major}:${minor}`));
  } catch {
    return null; // not Linux, not a block device (tmpfs, overlay), or /sys not mounted
  }
}

/**
 * What an ext4 device says of itself: /sys/fs/ext4/<device> exists for every mounted ext4,
 * /proc/fs/jbd2/<device>-<inode> only for one with a journal.
 */
export function ext4WithoutJournal(device: string, exists: (p: string) => boolean = existsSync, journals: () => string[] = listJournals): boolean {
  if (!exists(`/sys/fs/ext4/${device}`)) return false;
  return !journals().some((j) => j.startsWith(`${device}-`));
}

function listJournals(): string[] {
  try {
    return readdirSync('/proc/fs/jbd2');
  } catch {
    return [];
  }
}

/** A warning for the operator when dir is on ext4 without a journal; null otherwise. */
export function slowFileCreationWarning(dir: string): string | null {
  const device = blockDeviceOf(dir);
  if (device === null || !ext4WithoutJournal(device)) return null;
  return `the data dir is on ext4 without a journal (/dev/${device}): every file a job makes costs the kernel 10–20× more CPU than on a journaled filesystem; see docs/operations.md`;
}
