import { METHODS } from 'node:http';
import { deflateSync, gzipSync, brotliCompressSync } from 'node:zlib';

import fc from 'fast-check';

/**
 * Generators of hostile requests for the fuzz harness. Bodies are built as JSON text, not
 * values, so they can hold what JSON.stringify never writes (1e999, 20,000 levels of nesting)
 * and markers ($TASK_TOKEN$ and friends) that the harness swaps for live credentials when it
 * sends: a fuzzed console call may rotate a token, and generation must not depend on that.
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

/**
 * Stands for text the harness appends to the session cookie of a console request (the
 * session itself is only known when the request is sent).
 */
export const JUNK_COOKIE_HEADER = 'X-Fuzz-Cookie-Extra';

/** A request as generated: method, target, headers, body bytes. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Array<[string, string]>;
  body: Buffer;
}

// ---- strings and JSON text -------------------------------------------------------------

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

const numberText: fc.Arbitrary<string> = fc.oneof(
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

const str = (s: string) => JSON.stringify(s);

/** `arb` once in `outOf` draws, undefined otherwise. */
const sometimes = <T>(arb: fc.Arbitrary<T>, outOf: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: outOf - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/**
 * A field that is mostly well-formed, with hostile content where the type allows it (so a
 * request gets past validation and reaches storage, templates and delivery); now and then
 * absent or any JSON at all.
 */
const field = (wellFormed: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 20, arbitrary: wellFormed },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: jsonText },
  );

const text = (...plausible: string[]) =>
  fc.oneof(fc.constantFrom(...plausible.map(str)), fuzzString.map(str));
const stringArray = fc.array(fuzzString, { maxLength: 3 }).map((a) => JSON.stringify(a));

/** Serialises `{key: jsonText}` pairs, leaving out the absent ones. */
function objectText(fields: Record<string, string | undefined>): string {
  const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${str(k)}:${v}`).join(',')}}`;
}

const extraFields = fc.dictionary(fuzzString, jsonText, { maxKeys: 2 });

/** V1 names its task by token, by task_id (spelled many ways), both or neither. */
const v1Credential = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ token: str(MARK.taskToken) }) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(MARK.taskId, str(MARK.taskId), str(`0${MARK.taskId}`), `${MARK.taskId}.0`)
      .map((id) => ({ task_id: id })),
  },
  { weight: 1, arbitrary: fc.constant({ token: str(MARK.taskToken), task_id: MARK.taskId }) },
  {
    weight: 1,
    arbitrary: fc.record({ token: fuzzString.map(str), task_id: jsonText }, { requiredKeys: [] }),
  },
);

const v1Body: fc.Arbitrary<string> = fc
  .tuple(
    v1Credential,
    fc.record({
      title: field(text('Disk almost full')),
      text: field(fc.oneof(text('Disk on backup-01 is at 91%.'), fc.constant('null'))),
      html: field(text('<p>Disk <b>full</b></p><img src="https://tracker.example/p.gif">')),
      markdown: field(text('# Disk\n\n**full**')),
      at_mobiles: field(stringArray),
      at_userids: field(stringArray),
      at_user_ids: field(stringArray),
      at_all: field(fc.boolean().map(String)),
      recipients: field(stringArray),
      url: field(text('https://example.com/runbook')),
      mode: field(fc.constantFrom(str('sync'), str('async'))),
    }),
    extraFields,
  )
  .map(([credential, known, extra]) => objectText({ ...extra, ...credential, ...known }));

const placeholderValue = fc.oneof(
  { weight: 6, arbitrary: fuzzString.map(str) },
  { weight: 1, arbitrary: numberText },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null') },
  { weight: 1, arbitrary: jsonText },
);

const v2Body: fc.Arbitrary<string> = fc
  .tuple(
    fc.record({
      token: field(fc.constant(str(MARK.templateToken))),
      title: field(text('Disk almost full')),
      placeholders: field(
        fc
          .tuple(
            fc.record({ host: placeholderValue, level: placeholderValue }, { requiredKeys: [] }),
            fc.dictionary(fuzzString, placeholderValue, { maxKeys: 2 }),
          )
          .map(([own, other]) => objectText({ ...other, ...own })),
      ),
      recipients: field(stringArray),
      url: field(text('https://example.com/runbook')),
    }),
    extraFields,
  )
  .map(([known, extra]) => objectText({ ...extra, ...known }));

// ---- headers and bodies ----------------------------------------------------------------

/**
 * Header values as bytes a client can put on the wire: latin1, no CR or LF. NUL and DEL are
 * rare: Node's parser refuses them before Herald sees the request.
 */
const headerValue: fc.Arbitrary<string> = fc.oneof(
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

const contentType = fc.oneof(
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

const encodings = ['gzip', 'deflate', 'br', 'identity', 'x-gzip', 'gzip, gzip', 'compress'];

const encode = (encoding: string, body: Buffer): Buffer => {
  if (encoding === 'gzip' || encoding === 'x-gzip') return gzipSync(body);
  if (encoding === 'deflate') return deflateSync(body);
  if (encoding === 'br') return brotliCompressSync(body);
  return body;
};

const cookie = sometimes(
  fc.oneof(
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
  ),
  4,
);

const idempotencyKey = sometimes(fc.oneof(headerValue, fc.constantFrom('k', 'k'.repeat(300))), 4);

/** Raw bodies that are not JSON at all: bytes, form data, half a document. */
const rawBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
  fc
    .constantFrom('', '{', '{"title":', 'title=x&token=y', '[]', '"str"', '1', 'null')
    .map((s) => Buffer.from(s)),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => Buffer.from(s, 'utf8')),
);

/** Picks a body (JSON text or raw), an encoding (applied, or claimed but not applied) and headers. */
function withHeaders(
  method: string,
  path: string,
  bodyText: fc.Arbitrary<string>,
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      body: fc.oneof(
        { weight: 8, arbitrary: bodyText.map((t) => Buffer.from(t, 'utf8')) },
        { weight: 1, arbitrary: jsonText.map((t) => Buffer.from(t, 'utf8')) },
        { weight: 1, arbitrary: rawBody },
      ),
      contentType,
      encoding: sometimes(fc.oneof(fc.constantFrom(...encodings), headerValue), 6),
      encodeBody: fc.boolean(),
      cookie,
      idempotencyKey,
    })
    .map(({ body, contentType: ct, encoding, encodeBody, cookie: c, idempotencyKey: key }) => {
      const headers: Array<[string, string]> = [];
      if (ct !== undefined) headers.push(['Content-Type', ct]);
      if (encoding !== undefined) headers.push(['Content-Encoding', encoding]);
      if (c !== undefined) headers.push(['Cookie', c]);
      if (key !== undefined) headers.push(['Idempotency-Key', key]);
      const sent = encoding !== undefined && encodeBody ? encode(encoding, body) : body;
      return { method, path, headers, body: sent };
    });
}

/** POST /api/v1/message/send with anything in every field and header. */
export const v1Request = withHeaders('POST', '/api/v1/message/send', v1Body);

/** POST /api/v2/message/send with anything in every field and header. */
export const v2Request = withHeaders('POST', '/api/v2/message/send', v2Body);

// ---- console ---------------------------------------------------------------------------

/** Methods a client may send (fetch and Node refuse CONNECT and TRACE outright). */
const METHOD_LIST = METHODS.filter((m) => !['CONNECT', 'TRACE', 'TRACK'].includes(m));

const ID = '<id>';
const INSTANCE_KEYS = [
  'channelId',
  'contentType',
  'enabled',
  'recipient',
  'dynamicRecipients',
  'atMobiles',
  'atAll',
];
const TEMPLATE_KEYS = [
  'name',
  'description',
  'enabled',
  'placeholders',
  'text',
  'html',
  'markdown',
];
const PREVIEW_KEYS = ['placeholders', 'definitions', 'text', 'html', 'markdown'];

/** The console's routes (ids as ID), their methods and the body fields each one reads. */
const ROUTES: Array<{ path: string[]; methods: string[]; keys: string[] }> = [
  { path: ['status'], methods: ['GET'], keys: [] },
  { path: ['me'], methods: ['GET'], keys: [] },
  { path: ['setup'], methods: ['POST'], keys: ['username', 'password', 'setupCode'] },
  { path: ['login'], methods: ['POST'], keys: ['username', 'password'] },
  { path: ['logout'], methods: ['POST'], keys: [] },
  { path: ['password'], methods: ['POST'], keys: ['currentPassword', 'newPassword'] },
  { path: ['desktop-login'], methods: ['GET'], keys: [] },
  { path: ['channel-types'], methods: ['GET'], keys: [] },
  { path: ['channels'], methods: ['GET', 'POST'], keys: ['name', 'type', 'config'] },
  { path: ['channels', ID], methods: ['GET', 'PUT', 'DELETE'], keys: ['name', 'type', 'config'] },
  {
    path: ['channels', ID, 'test'],
    methods: ['POST'],
    keys: ['title', 'content', 'recipient', 'contentType'],
  },
  { path: ['tasks'], methods: ['GET', 'POST'], keys: ['name', 'description'] },
  { path: ['tasks', ID], methods: ['GET', 'PUT', 'DELETE'], keys: ['name', 'description'] },
  { path: ['tasks', ID, 'token'], methods: ['GET'], keys: [] },
  { path: ['tasks', ID, 'token', 'rotate'], methods: ['POST'], keys: [] },
  { path: ['tasks', ID, 'instances'], methods: ['GET', 'POST'], keys: INSTANCE_KEYS },
  { path: ['templates'], methods: ['GET', 'POST'], keys: TEMPLATE_KEYS },
  { path: ['templates', 'preview'], methods: ['POST'], keys: PREVIEW_KEYS },
  { path: ['templates', ID], methods: ['GET', 'PUT', 'PATCH', 'DELETE'], keys: TEMPLATE_KEYS },
  { path: ['templates', ID, 'token'], methods: ['GET'], keys: [] },
  { path: ['templates', ID, 'token', 'rotate'], methods: ['POST'], keys: [] },
  { path: ['templates', ID, 'preview'], methods: ['POST'], keys: PREVIEW_KEYS },
  { path: ['templates', ID, 'instances'], methods: ['GET', 'POST'], keys: INSTANCE_KEYS },
  { path: ['instances', ID], methods: ['PATCH', 'DELETE'], keys: INSTANCE_KEYS },
  { path: ['messages'], methods: ['GET'], keys: [] },
  { path: ['messages', 'unread-count'], methods: ['GET'], keys: [] },
  { path: ['messages', 'read-all'], methods: ['POST'], keys: [] },
  { path: ['messages', ID], methods: ['GET', 'PATCH', 'DELETE'], keys: ['read'] },
  { path: ['logs'], methods: ['GET'], keys: [] },
  { path: ['logs', ID], methods: ['GET'], keys: [] },
  { path: ['deliveries', ID, 'retry'], methods: ['POST'], keys: [] },
  {
    path: ['settings'],
    methods: ['GET', 'PUT'],
    keys: ['allowTaskId', 'retry', 'v1WaitMs', 'rateLimitPerMinute', 'showRemoteImages'],
  },
  { path: ['stats'], methods: ['GET'], keys: [] },
  { path: ['events'], methods: ['GET'], keys: [] },
];

/** Percent-encodes what it can; a lone surrogate has no UTF-8, so it goes out as a bad escape. */
const pathEscape = (s: string): string => {
  try {
    return encodeURIComponent(s);
  } catch {
    return s.replace(/[^A-Za-z0-9]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
  }
};

const idSegment = fc.oneof(
  fc.constantFrom(
    MARK.taskId,
    MARK.templateId,
    MARK.channelId,
    MARK.instanceId,
    MARK.messageId,
    MARK.sendId,
    MARK.deliveryId,
  ),
  fc.integer().map(String),
  fc.constantFrom(
    '0',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '9007199254740993',
    '99999999999999999999999',
    '%',
    '%zz',
    '%00',
    '%2e%2e',
    '..',
    '.',
    '%E0%A4%A',
    '%FF',
    '%C0%AF',
    ' ',
    'null',
  ),
  fuzzString.map(pathEscape),
);

const segment = fc.oneof(
  fc.constantFrom(...new Set(ROUTES.flatMap((r) => r.path).filter((s) => s !== ID))),
  idSegment,
);

const QUERY_KEYS = [
  'page',
  'pageSize',
  'q',
  'status',
  'days',
  'unread',
  'channelId',
  'taskId',
  'templateId',
  'api',
  'secret',
  'from',
  'to',
];

const query = fc.option(
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...QUERY_KEYS), fuzzString.map(pathEscape)),
        fc.oneof(idSegment, fc.constantFrom('', '[]', 'a[b]=c', '%')),
        fc.boolean(),
      ),
      { maxLength: 4 },
    )
    .map((pairs) =>
      pairs.map(([k, v, bracket]) => (bracket ? `${k}[]=${v}` : `${k}=${v}`)).join('&'),
    ),
  { nil: undefined },
);

const ending = fc
  .tuple(fc.constantFrom('', '/', '//'), query)
  .map(([trailing, q]) => `${trailing}${q === undefined ? '' : `?${q}`}`);

/** An object of anything: placeholders, channel config, a nested value to walk. */
const anyObject = fc.dictionary(fuzzString, jsonText, { maxKeys: 3 }).map((o) => objectText(o));

const wellFormedBoolean = fc.boolean().map(String);
const wellFormedNumber = fc.oneof(numberText, fc.constant(MARK.channelId));

/** What each body field of the console usually holds, with hostile content inside. */
const WELL_FORMED: Record<string, fc.Arbitrary<string>> = {
  placeholders: anyObject,
  config: anyObject,
  retry: fc
    .dictionary(fc.constantFrom('maxAttempts', 'baseDelayMs', 'maxDelayMs', 'jitter'), numberText)
    .map((o) => objectText(o)),
  definitions: fc
    .array(
      fc
        .record({ key: fuzzString.map(str), label: fuzzString.map(str) }, { requiredKeys: [] })
        .map((o) => objectText(o)),
      { maxLength: 3 },
    )
    .map((items) => `[${items.join(',')}]`),
  enabled: wellFormedBoolean,
  read: wellFormedBoolean,
  allowTaskId: wellFormedBoolean,
  showRemoteImages: wellFormedBoolean,
  atAll: wellFormedBoolean,
  dynamicRecipients: wellFormedBoolean,
  channelId: wellFormedNumber,
  v1WaitMs: wellFormedNumber,
  rateLimitPerMinute: wellFormedNumber,
  contentType: fc.constantFrom('"text"', '"html"', '"markdown"', '"pdf"'),
  type: fc.constantFrom('"hosted"', '"webhook"', '"email"', '"telegram"', '"nope"'),
};

/** A value for a body field: usually well-formed for that field, now and then any JSON. */
const fieldValue = (key: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 5, arbitrary: WELL_FORMED[key] ?? fuzzString.map(str) },
    { weight: 1, arbitrary: jsonText },
  );

/** A body for a route: its own fields (so strict schemas let it through), or anything. */
const bodyFor = (keys: string[]): fc.Arbitrary<string | undefined> =>
  keys.length === 0
    ? fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: jsonText })
    : fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: jsonText },
        {
          weight: 4,
          arbitrary: fc
            .record(Object.fromEntries(keys.map((k) => [k, fieldValue(k)])), {
              requiredKeys: [],
            })
            .map((fields) => objectText(fields)),
        },
      );

/** The id marker of the kind a route's first segment names. */
const OWN_ID: Record<string, string> = {
  tasks: MARK.taskId,
  templates: MARK.templateId,
  channels: MARK.channelId,
  instances: MARK.instanceId,
  messages: MARK.messageId,
  logs: MARK.sendId,
  deliveries: MARK.deliveryId,
};

/** A real route with ids in it (mostly one that exists), and a body made for it. */
const knownRoute = fc.constantFrom(...ROUTES).chain((route) =>
  fc.record({
    // Mostly a method the route has, so requests reach its handler; now and then any other.
    method: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...route.methods) },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
      { weight: 1, arbitrary: fc.constantFrom(...METHOD_LIST) },
    ),
    segments: fc
      .oneof(
        { weight: 3, arbitrary: fc.constant(OWN_ID[route.path[0]] ?? MARK.taskId) },
        { weight: 2, arbitrary: idSegment },
      )
      .map((id) => route.path.map((s) => (s === ID ? id : s))),
    body: bodyFor(route.keys),
  }),
);

/** Arbitrary segments: a route that does not exist, or an existing one reached oddly. */
const anyRoute = fc.record({
  method: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
    { weight: 1, arbitrary: fc.constantFrom(...METHOD_LIST) },
  ),
  segments: fc.array(segment, { maxLength: 5 }),
  body: bodyFor([]),
});

/** Any method on any path under /api/console, with any body, sent with the session cookie. */
export const consoleRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    route: fc.oneof({ weight: 4, arbitrary: knownRoute }, { weight: 1, arbitrary: anyRoute }),
    ending,
    contentType,
    junkCookie: sometimes(headerValue, 8),
  })
  .map(({ route, ending: end, contentType: ct, junkCookie }) => {
    const headers: Array<[string, string]> = [];
    if (route.body !== undefined) headers.push(['Content-Type', ct ?? 'application/json']);
    // The harness adds the session cookie; sometimes garbage rides along with it.
    if (junkCookie !== undefined) headers.push([JUNK_COOKIE_HEADER, junkCookie]);
    return {
      method: route.method,
      path: `/api/console/${route.segments.join('/')}${end}`,
      headers,
      body: Buffer.from(route.body ?? '', 'utf8'),
    };
  });
