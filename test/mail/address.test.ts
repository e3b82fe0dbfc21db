// One canonical form for e-mail addresses (NFKC, lower case), and the addresses that have
// none: those NFKC would change (they could stand for another mailbox), those a mailer could
// split or misread, and those without a dot in the domain. DOCPARSE_OPERATOR_EMAILS follows
// the same rule at start.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { canonicalEmail, EmailAddressError } from '../../src/mail/address.js';

const reasonFor = (address: string): string => {
  try {
    canonicalEmail(address);
  } catch (err) {
    expect(err).toBeInstanceOf(EmailAddressError);
    return (err as EmailAddressError).message;
  }
  throw new Error(`${address} was taken`);
};

describe('canonical e-mail addresses', () => {
  it('letter case and surrounding spaces make no difference; other scripts keep their letters', () => {
    expect(canonicalEmail('  Kim@B.Test ')).toBe('kim@b.test');
    expect(canonicalEmail('JÖRG@Bücher.DE')).toBe('jörg@bücher.de');
    expect(canonicalEmail("o'brien+tag@mail.example.co.uk")).toBe("o'brien+tag@mail.example.co.uk");
  });

  it('an address NFKC would change is refused, naming the character, never folded into another', () => {
    expect(reasonFor('\u212Aim@b.test')).toMatch(/U\+212A \(Kelvin sign\), which Unicode normalisation \(NFKC\) turns into "K"/);
    expect(reasonFor('\uff4bim@b.test')).toMatch(/U\+FF4B.*"k"/); // fullwidth k
    expect(reasonFor('\ufb01nance@b.test')).toMatch(/"fi"/); // the fi ligature
    expect(reasonFor('jo\u0308rg@b.test')).toMatch(/NFKC/); // a decomposed ö
  });

  it('what a mailer could split or misread is refused', () => {
    for (const address of [
      'a@b.test, c@d.test',
      'Kim <kim@b.test>',
      '"kim"@b.test',
      'kim@b.test\u0000',
      'k\u202eim@b.test',
      'a..b@c.test',
      '@b.test',
      'kim@',
      'kim@-b.test',
    ])
      expect(reasonFor(address), address).toMatch(/is not usable/);
  });

  it('a domain without a dot is refused with a sentence', () => {
    expect(reasonFor('root@localhost')).toBe(
      '"root@localhost" is not usable: its domain "localhost" has no dot; only addresses that mail can reach from anywhere are used (name@example.com)',
    );
  });

  it('DOCPARSE_OPERATOR_EMAILS: addresses taken in canonical form; one NFKC would change stops the start, named', () => {
    expect(loadConfig({ DOCPARSE_OPERATOR_EMAILS: 'Root@Ops.Test, kim@b.test' }).operatorEmails).toEqual(['root@ops.test', 'kim@b.test']);
    const err = (() => {
      try {
        loadConfig({ DOCPARSE_OPERATOR_EMAILS: `root@ops.test,${'\u212Aim@b.test'},admin@localhost` });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      expect.stringMatching(/^DOCPARSE_OPERATOR_EMAILS: "\u212Aim@b\.test" is not usable: it holds U\+212A \(Kelvin sign\)/),
      expect.stringMatching(/^DOCPARSE_OPERATOR_EMAILS: "admin@localhost" is not usable: its domain "localhost" has no dot/),
    ]);
  });
});
