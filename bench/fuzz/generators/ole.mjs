// OLE2 compound files (the container of DOC, XLS, PPT and MSG) built with `cfb`: small
// streams land in the mini stream, large ones in the FAT, so mutations reach both chains.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const CFB = require('cfb');

/** streams: {'/path/in/container': Buffer}; parents are created as storages. */
export function buildOle(streams) {
  const cfb = CFB.utils.cfb_new();
  for (const [p, data] of Object.entries(streams)) CFB.utils.cfb_add(cfb, p, data);
  return Buffer.from(CFB.write(cfb, { type: 'buffer' }));
}
