import { METHODS } from 'node:http';

import fc from 'fast-check';

import {
  contentType,
  cookieValue,
  fuzzString,
  jsonText,
  MARK,
  numberText,
  objectText,
  sometimes,
  str,
  type FuzzRequest,
} from './fuzz-values';

/** Generated requests to any method and path under /api/console. */

/**
 * Stand for cookie text the harness puts before or after the session cookie of a console
 * request (the session itself is only known when the request is sent). Before it, a bad
 * `herald_session=` is the one the server reads.
 */
export const JUNK_COOKIE_BEFORE = 'X-Fuzz-Cookie-Before';
export const JUNK_COOKIE_AFTER = 'X-Fuzz-Cookie-After';

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
  { path: ['login'], methods: ['POST'], keys: ['username', 'password', 'code'] },
  { path: ['account', 'two-factor'], methods: ['GET'], keys: [] },
  { path: ['account', 'two-factor', 'setup'], methods: ['POST'], keys: [] },
  { path: ['account', 'two-factor', 'enable'], methods: ['POST'], keys: ['code'] },
  { path: ['account', 'two-factor', 'recovery-codes'], methods: ['POST'], keys: ['code'] },
  { path: ['logout'], methods: ['POST'], keys: [] },
  { path: ['password'], methods: ['POST'], keys: ['currentPassword', 'newPassword'] },
  { path: ['desktop-login'], methods: ['GET'], keys: [] },
  { path: ['channel-types'], methods: ['GET'], keys: [] },
  { path: ['channels'], methods: ['GET', 'POST'], keys: ['name', 'type', 'config'] },
  { path: ['channels', ID], methods: ['GET', 'PUT', 'DELETE'], keys: ['name', 'type', 'config'] },
  {
    path: ['channels', 'test'],
    methods: ['POST'],
    keys: ['type', 'config', 'title', 'content', 'recipient'],
  },
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
    junkCookie: sometimes(fc.tuple(cookieValue, fc.boolean()), 6),
  })
  .map(({ route, ending: end, contentType: ct, junkCookie }) => {
    const headers: Array<[string, string]> = [];
    if (route.body !== undefined) headers.push(['Content-Type', ct ?? 'application/json']);
    // The harness adds the session cookie; sometimes garbage rides along with it.
    if (junkCookie !== undefined) {
      const [value, before] = junkCookie;
      headers.push([before ? JUNK_COOKIE_BEFORE : JUNK_COOKIE_AFTER, value]);
    }
    return {
      method: route.method,
      path: `/api/console/${route.segments.join('/')}${end}`,
      headers,
      body: Buffer.from(route.body ?? '', 'utf8'),
    };
  });
