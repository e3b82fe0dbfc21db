// The start-up warning for a data dir on ext4 without a journal, where every file a job makes
// costs the kernel 10–20× more (docs/operations.md). The device is found from the directory's
// device number through /sys; ext4 and its journal are read from what the kernel lists.
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';

import { blockDeviceOf, ext4WithoutJournal, slowFileCreationWarning } from '../../src/data-dir/filesystem.js';

const linuxSys = existsSync('/sys/dev/block');

describe('the data dir filesystem check', () => {
  it.runIf(linuxSys)('names the block device under a directory, and none under a tmpfs', () => {
    const device = blockDeviceOf(tmpdir());
    // A temp dir on a block device: the kernel lists that device; on an overlay or tmpfs: none.
    if (device !== null) expect(existsSync(`/sys/class/block/${device}`)).toBe(true);
    if (existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(tmpdir()).dev) {
      expect(blockDeviceOf('/dev/shm')).toBeNull();
      expect(slowFileCreationWarning('/dev/shm')).toBeNull();
    }
  });

  it('warns for ext4 without a journal only', () => {
    const ext4 = new Set(['/sys/fs/ext4/vda', '/sys/fs/ext4/vda1', '/sys/fs/ext4/loop0']);
    const exists = (p: string) => ext4.has(p);
    const journals = () => ['loop0-8', 'vda1-8'];
    expect(ext4WithoutJournal('vda', exists, journals)).toBe(true); // vda1's journal is not vda's
    expect(ext4WithoutJournal('vda1', exists, journals)).toBe(false);
    expect(ext4WithoutJournal('loop0', exists, journals)).toBe(false);
    expect(ext4WithoutJournal('nvme0n1', exists, journals)).toBe(false); // not ext4 (XFS, btrfs…)
  });

  it('says nothing for a directory it cannot read', () => {
    expect(blockDeviceOf('/no/such/dir')).toBeNull();
    expect(slowFileCreationWarning('/no/such/dir')).toBeNull();
  });
});
