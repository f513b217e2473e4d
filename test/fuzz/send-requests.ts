import { deflateSync, gzipSync, brotliCompressSync } from 'node:zlib';

import fc from 'fast-check';

import {
  contentType,
  cookieValue,
  fuzzString,
  headerValue,
  jsonText,
  MARK,
  numberText,
  objectText,
  sometimes,
  str,
  type FuzzRequest,
} from './fuzz-values';

/** Generated requests to POST /api/v1/message/send and POST /api/v2/message/send. */

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

const encodings = ['gzip', 'deflate', 'br', 'identity', 'x-gzip', 'gzip, gzip', 'compress'];

const encode = (encoding: string, body: Buffer): Buffer => {
  if (encoding === 'gzip' || encoding === 'x-gzip') return gzipSync(body);
  if (encoding === 'deflate') return deflateSync(body);
  if (encoding === 'br') return brotliCompressSync(body);
  return body;
};

const cookie = sometimes(cookieValue, 4);

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
