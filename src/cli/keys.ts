// `docparse admin keys rotate|list`: token signing keys, over a key ring that is already
// loaded (the node's own, or one the CLI opened).
import type { KeyRing } from '../identity/keyring.js';
import { listSigningKeys, rotateSigningKey } from '../identity/admin-keys.js';

type Out = (line: string) => void;

export async function runKeysAdmin(argv: string[], keyring: KeyRing, out: Out, err: Out): Promise<number> {
  // Output is JSON lines either way, so --json changes nothing.
  const action = argv[1];
  if (action === 'rotate') {
    out(JSON.stringify(await rotateSigningKey(keyring)));
    return 0;
  }
  if (action === 'list') {
    for (const k of await listSigningKeys(keyring)) out(JSON.stringify(k));
    return 0;
  }
  err('usage: docparse admin keys rotate|list');
  return 2;
}
