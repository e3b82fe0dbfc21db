// `docparse admin keys …`: rotate and list token signing keys.
import type { KeyRing, SigningKeyInfo } from './keyring.js';

/**
 * Creates a new signing key (it signs from now on, on every node within a minute) and retires
 * the previous ones; they keep verifying until their last token has expired.
 */
export async function rotateSigningKey(keyring: KeyRing): Promise<{ kid: string; retired: string[] }> {
  return keyring.rotate();
}

/** All keys in the store with their state, newest first. */
export async function listSigningKeys(keyring: KeyRing): Promise<SigningKeyInfo[]> {
  const keys = await keyring.describe();
  return keys.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
}
