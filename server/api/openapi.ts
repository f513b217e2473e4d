/**
 * A hand-kept OpenAPI 3.1 description of the send and console APIs. The send bodies are
 * spelled out; console routes are listed with their purpose and point at docs/console-api.md.
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

const consoleRoutes: Array<[string, string, string]> = [
  ['get', '/api/console/status', 'Whether first-run setup is needed, and the version'],
  [
    'post',
    '/api/console/setup',
    'Create the first administrator (only while none exists) with the setup code Herald printed',
  ],
  ['post', '/api/console/login', 'Sign in; sets the session cookie; 429 while a delay runs'],
  ['post', '/api/console/logout', 'Sign out'],
  ['get', '/api/console/me', 'The signed-in user'],
  ['post', '/api/console/password', 'Change the password'],
  ['get', '/api/console/channel-types', 'Channel kinds with their ContentTypes and rules'],
  ['get', '/api/console/channels', 'List channels'],
  ['post', '/api/console/channels', 'Create a channel'],
  ['get', '/api/console/channels/{id}', 'Read a channel (secrets masked)'],
  ['put', '/api/console/channels/{id}', 'Update a channel'],
  ['delete', '/api/console/channels/{id}', 'Delete a channel (refused while in use)'],
  ['post', '/api/console/channels/{id}/test', 'Send a test message through a channel'],
  ['get', '/api/console/tasks', 'List tasks (?name=)'],
  ['post', '/api/console/tasks', 'Create a task'],
  ['get', '/api/console/tasks/{id}', 'Read a task with its instances'],
  ['put', '/api/console/tasks/{id}', 'Rename a task'],
  ['delete', '/api/console/tasks/{id}', 'Delete a task and its instances'],
  ['get', '/api/console/tasks/{id}/token', 'The task token'],
  ['post', '/api/console/tasks/{id}/token/rotate', 'Rotate the task token'],
  ['get', '/api/console/tasks/{id}/instances', 'List task instances'],
  ['post', '/api/console/tasks/{id}/instances', 'Add a task instance'],
  ['get', '/api/console/templates', 'List templates (?name=)'],
  ['post', '/api/console/templates', 'Create a template'],
  ['post', '/api/console/templates/preview', 'Preview an unsaved template'],
  ['get', '/api/console/templates/{id}', 'Read a template with its instances'],
  ['put', '/api/console/templates/{id}', 'Update a template'],
  ['patch', '/api/console/templates/{id}', 'Update a template'],
  ['delete', '/api/console/templates/{id}', 'Delete a template'],
  ['get', '/api/console/templates/{id}/token', 'The template token'],
  ['post', '/api/console/templates/{id}/token/rotate', 'Rotate the template token'],
  ['post', '/api/console/templates/{id}/preview', 'Render the template with placeholder values'],
  ['get', '/api/console/templates/{id}/instances', 'List template instances'],
  ['post', '/api/console/templates/{id}/instances', 'Add a template instance'],
  ['patch', '/api/console/instances/{id}', 'Update an instance'],
  ['delete', '/api/console/instances/{id}', 'Delete an instance'],
  ['get', '/api/console/logs', 'List sends (q, api, taskId, templateId, status, from, to, page)'],
  ['get', '/api/console/logs/{id}', 'One send with its deliveries and attempts'],
  ['post', '/api/console/deliveries/{id}/retry', 'Queue a failed delivery again'],
  ['get', '/api/console/messages', 'List hosted messages (q, unread, page)'],
  ['get', '/api/console/messages/unread-count', 'Unread hosted messages'],
  ['post', '/api/console/messages/read-all', 'Mark every hosted message read'],
  ['get', '/api/console/messages/{id}', 'One hosted message with sanitised HTML'],
  ['patch', '/api/console/messages/{id}', 'Mark read or unread'],
  ['delete', '/api/console/messages/{id}', 'Delete a hosted message'],
  ['post', '/api/console/messages/{id}/link', 'Create (or return) the share link of a message'],
  ['delete', '/api/console/messages/{id}/link', 'Revoke the share link of a message'],
  ['get', '/api/console/schedules', 'List scheduled messages (?name=)'],
  ['post', '/api/console/schedules', 'Create a scheduled message'],
  [
    'get',
    '/api/console/schedules/preview',
    'The next run times of a cron expression (?cron=&timezone=&count=)',
  ],
  ['get', '/api/console/schedules/{id}', 'Read a scheduled message'],
  ['put', '/api/console/schedules/{id}', 'Update a scheduled message'],
  ['patch', '/api/console/schedules/{id}', 'Update a scheduled message'],
  ['delete', '/api/console/schedules/{id}', 'Delete a scheduled message'],
  ['post', '/api/console/schedules/{id}/run', 'Send a scheduled message now'],
  ['get', '/api/console/settings', 'Settings and about'],
  ['put', '/api/console/settings', 'Change settings'],
  ['get', '/api/console/stats', 'Dashboard numbers (?days=)'],
  ['get', '/api/console/events', 'Server-Sent Events: message, delivery, send'],
];

export function openApiDocument(version: string) {
  const paths: Record<string, Record<string, unknown>> = {
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
  paths['/api/public/preview/{key}'] = {
    get: {
      summary: 'One hosted message by its share-link key, without login (rate-limited per address)',
      parameters: [{ name: 'key', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': {
          description: 'title, content, format, url, safeHtml, createdAt',
          content: { 'application/json': { schema: envelope() } },
        },
        '404': { description: 'Unknown, revoked or malformed key' },
        '429': { description: 'Too many previews from this address' },
      },
    },
  };
  for (const [method, path, summary] of consoleRoutes) {
    paths[path] = {
      ...(paths[path] ?? {}),
      [method]: {
        summary,
        tags: ['console'],
        security:
          path.endsWith('/status') || path.endsWith('/setup') || path.endsWith('/login')
            ? []
            : [{ session: [] }],
        responses: {
          '200': {
            description: 'Envelope; see docs/console-api.md',
            content: { 'application/json': { schema: envelope() } },
          },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Herald',
      version,
      description: 'Message dispatch: send APIs (V1 tasks, V2 templates) and the console API.',
    },
    components: {
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'herald_session' } },
    },
    paths,
  };
}
