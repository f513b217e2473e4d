/**
 * The send APIs' part of the OpenAPI document, kept by hand as it was until their request
 * schemas (server/features/sending/send-schemas.ts, being split) move into contract/ and this
 * is generated like the console's part (server/api/openapi.ts).
 */
const envelope = (data: object = { type: ['object', 'null'] }) => ({
  type: 'object',
  required: ['code', 'msg', 'data'],
  properties: { code: { type: 'integer' }, msg: { type: 'string' }, data },
});

const idempotencyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', maxLength: 255 },
};

const stringArray = { type: 'array', items: { type: 'string' } };

/** Optional send fields also take null, meaning "not sent" (typed clients send null). */
function nullableOptionals(
  properties: Record<string, { type: string | string[]; [more: string]: unknown }>,
  required: string[],
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => {
      if (required.includes(name)) return [name, schema];
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      return [name, { ...schema, type: [...types.filter((t) => t !== 'null'), 'null'] }];
    }),
  );
}

const hostMessageUrl = {
  type: 'string',
  description: 'Share link of the hosted message (only when the send has a hosted instance)',
};

const errorResponses = {
  '400': {
    description: 'Invalid input; msg names the field (V2: also the contract’s Chinese msgs)',
    content: { 'application/json': { schema: envelope() } },
  },
  '500': {
    description: 'Internal error, or (V1) every delivery failed',
    content: { 'application/json': { schema: envelope() } },
  },
};

/** The two send routes, as OpenAPI path items. */
export function sendApiPaths(): Record<string, Record<string, unknown>> {
  return {
    '/api/v1/message/send': {
      post: {
        summary: 'Send a message through a task (V1, legacy)',
        parameters: [idempotencyHeader],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['title'],
                properties: nullableOptionals(
                  {
                    token: {
                      type: 'string',
                      description: 'Encrypted task token (wins over task_id)',
                    },
                    task_id: {
                      type: ['string', 'integer'],
                      description: 'Plaintext task id (can be turned off)',
                    },
                    title: { type: 'string', maxLength: 1000 },
                    text: { type: 'string' },
                    html: { type: 'string' },
                    markdown: { type: 'string' },
                    at_mobiles: stringArray,
                    at_userids: stringArray,
                    at_user_ids: {
                      ...stringArray,
                      description: 'Alias of at_userids (Message Nest clients)',
                    },
                    at_all: { type: 'boolean' },
                    recipients: { ...stringArray, maxItems: 100 },
                    url: {
                      type: 'string',
                      description:
                        'Kept with hosted messages and sent where a channel supports a link',
                    },
                    mode: { type: 'string', enum: ['sync', 'async'] },
                  },
                  ['title'],
                ),
              },
            },
          },
        },
        responses: {
          '200': {
            description:
              'status sent, partial or retrying (with results; nothing to resend) or queued',
            content: {
              'application/json': {
                schema: envelope({
                  type: 'object',
                  properties: {
                    status: { type: 'string', enum: ['sent', 'partial', 'retrying', 'queued'] },
                    sendId: { type: 'integer' },
                    results: { type: 'array' },
                    hostMessageUrl,
                  },
                }),
              },
            },
          },
          '401': { description: 'Token invalid or rotated; task_id turned off' },
          '403': { description: 'Cross-site browser request (real status even with always200)' },
          '404': { description: 'Token does not exist (task deleted)' },
          '429': { description: 'Per-token rate limit' },
          ...errorResponses,
        },
      },
    },
    '/api/v2/message/send': {
      post: {
        summary: 'Send a message through a template (V2, recommended)',
        parameters: [idempotencyHeader],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['token', 'title'],
                properties: nullableOptionals(
                  {
                    token: { type: 'string' },
                    title: { type: 'string', minLength: 1, maxLength: 1000 },
                    placeholders: {
                      type: 'object',
                      additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
                    },
                    recipients: { ...stringArray, maxItems: 100 },
                    url: { type: 'string' },
                  },
                  ['token', 'title'],
                ),
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'Queued; count = enabled instances',
            content: {
              'application/json': {
                schema: envelope({
                  type: 'object',
                  properties: {
                    token: { type: 'string' },
                    count: { type: 'integer' },
                    hostMessageUrl,
                  },
                }),
              },
            },
          },
          '429': { description: 'Per-token rate limit' },
          ...errorResponses,
        },
      },
    },
  };
}
