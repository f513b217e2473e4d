import fc from 'fast-check';

/**
 * The building blocks of the fuzz harness's requests: hostile strings, JSON text and header
 * values. Bodies are built as JSON text, not values, so they can hold what JSON.stringify never
 * writes (1e999, 20,000 levels of nesting) and markers ($TASK_TOKEN$ and friends) that the
 * harness swaps for live credentials when it sends: a fuzzed console call may rotate a token,
 * and generation must not depend on that.
 */

export const MARK = {
  taskToken: '$TASK_TOKEN$',
  taskId: '$TASK_ID$',
  templateToken: '$TEMPLATE_TOKEN$',
  templateId: '$TEMPLATE_ID$',
  channelId: '$CHANNEL_ID$',
  instanceId: '$INSTANCE_ID$',
  messageId: '$MESSAGE_ID$',
  sendId: '$SEND_ID$',
  deliveryId: '$DELIVERY_ID$',
} as const;

/** A request as generated: method, target, headers, body bytes. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Array<[string, string]>;
  body: Buffer;
}

const NASTY = [
  '\u0000',
  '\u0000\u0000',
  '\uD800',
  '\uDFFF',
  '\uDBFF\uDFFF',
  '\uFFFE',
  '\uFEFF',
  '\u202E',
  '\u0007',
  '\u001B[31m',
  '\r\n',
  '\t',
  '%',
  '%zz',
  '%00',
  '{{',
  '}}',
  '{{host}}',
  '{{level}}',
  '{{ host }}',
  '\\',
  '"',
  "'",
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '../',
  '𝕳𝖊𝖗𝖆𝖑𝖉',
  '消息',
  '',
  ' ',
  'null',
  'true',
  '0',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
  'toString',
];

const nasty = fc.constantFrom(...NASTY);

/** Strings from every corner of Unicode, with NUL, lone surrogates and template syntax often. */
export const fuzzString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.oneof(nasty, fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 8 })
      .map((parts) => parts.join('')),
  },
  // Lengths around the limits (title 1,000; URL 2,048; body 200,000 characters).
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(999, 1000, 1001, 2048, 2049, 199_999, 200_000, 200_001)
      .chain((n) => fc.constantFrom('a', '\u0000', '消', '𝕳').map((c) => c.repeat(n))),
  },
);

export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom(
    '1e999',
    '-1e999',
    '1e-999',
    '9007199254740993',
    '-0',
    '0.0',
    '1.0',
    '123456789012345678901234567890',
    '0.1e1',
    '1E2',
  ),
);

/** Deep nesting written as text: JSON.stringify itself would overflow its stack. */
const deepText: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 2, max: 20_000 }), fc.constantFrom('array', 'object'))
  .map(([depth, kind]) =>
    kind === 'array'
      ? '['.repeat(depth) + ']'.repeat(depth)
      : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
  );

const { json: jsonValue } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fuzzString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(fuzzString, tie('json'), { maxKeys: 4 }),
  ),
}));

/** Any JSON text: values of every type, huge and odd numbers, deep nesting. */
export const jsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: jsonValue.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 2, arbitrary: numberText },
  { weight: 1, arbitrary: deepText },
);

export const str = (s: string) => JSON.stringify(s);

/** `arb` once in `outOf` draws, undefined otherwise. */
export const sometimes = <T>(arb: fc.Arbitrary<T>, outOf: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: outOf - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** Serialises `{key: jsonText}` pairs, leaving out the absent ones. */
export function objectText(fields: Record<string, string | undefined>): string {
  const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${str(k)}:${v}`).join(',')}}`;
}

/**
 * Header values as bytes a client can put on the wire: latin1, no CR or LF. NUL and DEL are
 * rare: Node's parser refuses them before Herald sees the request.
 */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.string({
      unit: fc
        .integer({ min: 0x20, max: 0xff })
        .filter((c) => c !== 0x7f)
        .map((c) => String.fromCharCode(c)),
    }),
  },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.constantFrom('%', '%zz', '=', ';', ',', '"', '\t', 'é', 'a', ' '), {
        maxLength: 10,
      })
      .map((parts) => parts.join('')),
  },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '\u007f', '\u0001') },
);

export const contentType = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'application/json; charset=nope',
        'text/plain',
        'text/plain;charset=UTF-8',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/octet-stream',
        '*/*',
        '',
      ),
      headerValue,
    ),
  },
);

/** Cookie headers as browsers never send them: bad escapes, no value, quotes, duplicates. */
export const cookieValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'herald_session=%',
    'herald_session=%E0%A4%A',
    'herald_session=',
    'herald_session',
    '=;=;',
    'herald_session="unterminated',
    'herald_session=a; herald_session=b',
  ),
  headerValue,
  headerValue.map((v) => `herald_session=${v}`),
);
