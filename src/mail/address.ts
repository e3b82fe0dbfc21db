// E-mail addresses in one canonical form, used wherever an address is stored or compared:
// members, invitations, sign-in, operators (DOCPARSE_OPERATOR_EMAILS), e-mail recipients.
//
// The form: NFKC, then lower case — the whole address. The local part is case-sensitive in
// theory (RFC 5321), but no provider the dashboard signs in with treats Kim@ and kim@ as two
// people, and people type addresses in any case. An address that NFKC would change is refused
// rather than normalised: the Kelvin sign in "\u212Aim@b.test" would otherwise become
// "kim@b.test", and the holder of that other mailbox would take kim's invitations and, were
// kim an operator, kim's powers. Decomposed accents are refused by the same rule, as is
// anything that is not a plain dot-atom address with a dotted domain (no quoted local parts,
// no commas or angle brackets a mailer could split on, no "root@localhost").

import { describeChar } from '../http/text-rules.js';

/** Why an address is refused: a sentence that completes "… is not usable: ". */
export class EmailAddressError extends Error {
  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`${JSON.stringify(address)} is not usable: ${reason}`);
    this.name = 'EmailAddressError';
  }
}

const ATOM = "[\\p{L}\\p{M}\\p{N}!#$%&'*+/=?^_`{|}~-]+";
const LOCAL_PART = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`, 'u');
const LABEL = /^[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?$/u;
const MAX_LOCAL = 64;
const MAX_DOMAIN = 255;

/** The canonical form of an address; throws EmailAddressError (with a reason people understand) when it has none. */
export function canonicalEmail(input: string): string {
  const raw = input.trim();
  const normalized = raw.normalize('NFKC');
  if (normalized !== raw) {
    const changed = [...raw].find((c) => c.normalize('NFKC') !== c);
    const what = changed
      ? `it holds ${describeChar(changed)}, which Unicode normalisation (NFKC) turns into ${JSON.stringify(changed.normalize('NFKC'))}`
      : `Unicode normalisation (NFKC) writes it differently (${JSON.stringify(normalized)})`;
    throw new EmailAddressError(raw, `${what}, so it could stand for another person's address; use the address exactly as its mail provider writes it`);
  }
  const at = raw.lastIndexOf('@');
  const local = raw.slice(0, at);
  const domain = raw.slice(at + 1);
  if (at < 1 || !LOCAL_PART.test(local) || local.length > MAX_LOCAL) {
    throw new EmailAddressError(raw, 'it is not an e-mail address of the form name@example.com');
  }
  const labels = domain.split('.');
  if (domain.length > MAX_DOMAIN || !labels.every((l) => LABEL.test(l))) throw new EmailAddressError(raw, `${JSON.stringify(domain)} is not a domain name`);
  if (labels.length < 2) {
    throw new EmailAddressError(
      raw,
      `its domain ${JSON.stringify(domain)} has no dot; only addresses that mail can reach from anywhere are used (name@example.com)`,
    );
  }
  return raw.toLowerCase().normalize('NFKC');
}

/** The canonical form, or null when the address has none (e.g. a row written before the rule). */
export function canonicalEmailOrNull(input: string): string | null {
  try {
    return canonicalEmail(input);
  } catch {
    return null;
  }
}
