import { randomBytes } from 'node:crypto';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  base32Decode,
  base32Encode,
  hotp,
  matchTotp,
  newTotpSecret,
  otpauthUrl,
  totpAt,
} from '../../../../server/crypto/totp';

/** RFC 6238 Appendix B: the seeds per algorithm, and the 8-digit codes at each time. */
const SEEDS = {
  sha1: Buffer.from('12345678901234567890'),
  sha256: Buffer.from('12345678901234567890123456789012'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
};
const VECTORS: Array<[number, { sha1: string; sha256: string; sha512: string }]> = [
  [59, { sha1: '94287082', sha256: '46119246', sha512: '90693936' }],
  [1111111109, { sha1: '07081804', sha256: '68084774', sha512: '25091201' }],
  [1111111111, { sha1: '14050471', sha256: '67062674', sha512: '99943326' }],
  [1234567890, { sha1: '89005924', sha256: '91819424', sha512: '93441116' }],
  [2000000000, { sha1: '69279037', sha256: '90698825', sha512: '38618901' }],
  [20000000000, { sha1: '65353130', sha256: '77737706', sha512: '47863826' }],
];

describe('TOTP (RFC 6238)', () => {
  it.each(VECTORS)("matches Appendix B's codes at T = %i s", (seconds, codes) => {
    for (const algorithm of ['sha1', 'sha256', 'sha512'] as const) {
      expect(totpAt(SEEDS[algorithm], seconds * 1000, 8, algorithm), algorithm).toBe(
        codes[algorithm],
      );
    }
  });

  it("matches RFC 4226 Appendix D's HOTP values", () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676'];
    expected.forEach((code, counter) => expect(hotp(SEEDS.sha1, counter)).toBe(code));
  });

  it('base32 round-trips any bytes and reads the RFC 4648 examples', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        expect(base32Decode(base32Encode(Buffer.from(bytes)))).toEqual(Buffer.from(bytes));
      }),
    );
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('mzxw 6ytb-oi======').toString()).toBe('foobar');
    expect(() => base32Decode('not base32!')).toThrow();
  });

  it('accepts a code one step either side of now, never a step already used', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const key = base32Decode(secret);
    const now = 1_700_000_000_000;
    const step = Math.floor(now / 30_000);
    expect(matchTotp(secret, totpAt(key, now), now, null)).toBe(step);
    expect(matchTotp(secret, totpAt(key, now - 30_000), now, null)).toBe(step - 1);
    expect(matchTotp(secret, totpAt(key, now + 30_000), now, null)).toBe(step + 1);
    expect(matchTotp(secret, totpAt(key, now - 60_000), now, null)).toBeNull();
    expect(matchTotp(secret, totpAt(key, now + 60_000), now, null)).toBeNull();
    // Used: this step and every earlier one are refused; a later one still works.
    expect(matchTotp(secret, totpAt(key, now), now, step)).toBeNull();
    expect(matchTotp(secret, totpAt(key, now - 30_000), now, step)).toBeNull();
    expect(matchTotp(secret, totpAt(key, now + 30_000), now, step)).toBe(step + 1);
    for (const bad of ['', '12345', '1234567', 'abcdef', ' 123456']) {
      expect(matchTotp(secret, bad, now, null)).toBeNull();
    }
  });

  it('a different secret does not match (over many random secrets)', () => {
    const now = Date.now();
    let matched = 0;
    for (let i = 0; i < 200; i++) {
      const code = totpAt(randomBytes(20), now);
      if (matchTotp(newTotpSecret(), code, now, null) !== null) matched++;
    }
    // Three steps of six digits each: a chance of 3 in a million per try.
    expect(matched).toBeLessThanOrEqual(1);
  });

  it('builds the otpauth:// URL authenticator apps read', () => {
    const url = new URL(otpauthUrl('Herald', 'ann lee', 'JBSWY3DPEHPK3PXP'));
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(decodeURIComponent(url.pathname)).toBe('/Herald:ann lee');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      secret: 'JBSWY3DPEHPK3PXP',
      issuer: 'Herald',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});
