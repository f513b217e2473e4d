import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { v2RequestSchema } from '../../../../../contract';
import { plainV2Request } from '../../../../../server/features/sending/plain-v2-request';

// Strings near every rule: spaces to trim, control characters (tab, LF and CR are allowed),
// lengths at the limits (token 512, title 1000, url 2048).
const awkward = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    '',
    ' ',
    '  x  ',
    '\t',
    'a\nb',
    'a\u0000b',
    'x\u001f',
    ' \u0007 ',
    '\r\n',
    '__proto__',
  ),
  fc
    .constantFrom(511, 512, 513, 999, 1000, 1001, 2047, 2048, 2049)
    .chain((n) => fc.constantFrom('x'.repeat(n), ` ${'x'.repeat(n - 1)} `, ` ${'x'.repeat(n)}`)),
);
const scalar = fc.oneof(awkward, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.dictionary(awkward, scalar, { maxKeys: 4 }),
  fc.constant(undefined),
);
const fields = {
  token: fc.oneof({ weight: 4, arbitrary: awkward }, { weight: 1, arbitrary: value }),
  title: fc.oneof({ weight: 4, arbitrary: awkward }, { weight: 1, arbitrary: value }),
  placeholders: fc.oneof(value, fc.dictionary(awkward, scalar, { maxKeys: 4 })),
  recipients: fc.oneof(value, fc.array(awkward, { maxLength: 3 })),
  url: value,
  extra: value,
};
// Mostly requests with a token and a title, the only ones the plain parse can take.
// And requests close to the ones scripts send, so many are taken and compared.
const plausible = fc.record(
  {
    token: fc.string({ minLength: 1, maxLength: 40 }),
    title: fc.string({ minLength: 1, maxLength: 40 }),
    placeholders: fc.oneof(fc.constant(null), fc.dictionary(fc.string(), scalar, { maxKeys: 4 })),
    recipients: fc.constant(null),
    url: fc.oneof(fc.constant(null), fc.string({ maxLength: 40 })),
    extra: value,
  },
  { requiredKeys: ['token', 'title'] },
);
const request = fc.oneof(
  plausible,
  fc.record(fields, { requiredKeys: ['token', 'title'] }),
  fc.record(fields, { requiredKeys: [] }),
);

describe('plainV2Request: zod\u2019s answer without zod for the usual requests', () => {
  it('returns exactly what v2RequestSchema returns (keys and their order included), or nothing', () => {
    let taken = 0;
    fc.assert(
      fc.property(request, (input) => {
        const plain = plainV2Request(input);
        if (plain === undefined) return;
        taken++;
        const parsed = v2RequestSchema.safeParse(input);
        expect(parsed.success).toBe(true);
        expect(plain).toStrictEqual(parsed.data);
        expect(Object.keys(plain)).toEqual(Object.keys(parsed.data!));
        expect(JSON.stringify(plain)).toBe(JSON.stringify(parsed.data));
      }),
      { numRuns: 20_000 },
    );
    // The comparison above must have run often enough to mean something.
    expect(taken).toBeGreaterThan(2000);
  });

  it('takes the requests scripts send: token, title, flat values, a URL', () => {
    const input = {
      token: ' tok ',
      title: ' Disk ',
      placeholders: { host: 'web-3', pct: 98, ok: false, none: null },
      url: ' https://example.com/x ',
      other: 'ignored',
    };
    expect(plainV2Request(input)).toStrictEqual(v2RequestSchema.parse(input));
    expect(plainV2Request({ token: 't', title: 't', url: null, placeholders: null })).toStrictEqual(
      v2RequestSchema.parse({ token: 't', title: 't', url: null, placeholders: null }),
    );
  });

  it('leaves zod to word every refusal, and recipients, nested values and odd objects to zod', () => {
    for (const input of [
      { title: 't' },
      { token: 't', title: '   ' },
      { token: 't', title: 'a\u0000' },
      { token: 't', title: 't', placeholders: { 'k\u0001': 'v' } },
      { token: 't', title: 't', placeholders: { k: { nested: 1 } } },
      { token: 't', title: 't', placeholders: ['a'] },
      { token: 't', title: 't', placeholders: JSON.parse('{"__proto__": "x"}') as object },
      { token: 't', title: 't', placeholders: Object.create(null) as object },
      { token: 't', title: 't', recipients: ['a@example.com'] },
      { token: 't', title: 't', url: 5 },
    ]) {
      expect(plainV2Request(input), JSON.stringify(input)).toBeUndefined();
    }
  });
});
