import { route } from '../route';
import { v1AnswerSchema, v2AnswerSchema } from './answers';
import { idempotencyHeaders, v1RequestSchema, v2RequestSchema } from './requests';

export * from './answers';
export * from './requests';

/** Refusals both send APIs share, by status (docs/send-api.md). */
const refusals = {
  400: 'Invalid input: msg names the field (V2: also the contract’s Chinese msgs, e.g. 模板已禁用)',
  403: 'A cross-site browser request (its real status, even with always200)',
  409: 'Idempotency-Key: the first request with this key failed or is still being processed',
  421: 'A Host Herald does not answer to (its real status, even with always200)',
  429: 'The per-token rate limit',
  500: 'Internal error',
  503: 'The database is unavailable; nothing was stored (with Retry-After)',
};

/**
 * The two send APIs: no session, the token in the body is the credential. Every answer is the
 * envelope; with the `sendApi.httpStatus` setting `always200` the HTTP status is 200 and only
 * `code` tells answers apart.
 */
export const sendRoutes = {
  v1: route({
    method: 'post',
    path: '/api/v1/message/send',
    summary: 'Send a message through a task (V1): the caller sends the content',
    public: true,
    headers: idempotencyHeaders,
    body: v1RequestSchema,
    multipart: true,
    response: v1AnswerSchema,
    refusals: {
      ...refusals,
      401: 'The token is invalid or was rotated, or task_id is turned off',
      404: 'The token’s task was deleted, or task_id names no task',
      500: 'Internal error, or every delivery failed for good',
    },
  }),
  v2: route({
    method: 'post',
    path: '/api/v2/message/send',
    summary:
      'Send a message through a template (V2, recommended): the caller sends the token, a title and placeholder values',
    public: true,
    headers: idempotencyHeaders,
    body: v2RequestSchema,
    multipart: true,
    response: v2AnswerSchema,
    refusals,
  }),
};
