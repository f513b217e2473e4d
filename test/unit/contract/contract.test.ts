import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

import {
  AUDIT_ACTIONS,
  attemptSchema,
  CHANNEL_CONFIGS,
  CHANNEL_TYPES,
  CONSOLE_BASE,
  CONTENT_TYPES,
  consoleRoutes,
  DELIVERY_STATUSES,
  hookRoutes,
  IMPORT_KINDS,
  namedSchemas,
  publicRoutes,
  routesOf,
  sendRoutes,
  sendSchema,
  sendStatusSchema,
  settingsPatchBody,
  type ContentType,
  type DeliveryStatus,
  type RouteSpec,
} from '../../../contract';
import { openApiDocument } from '../../../server/api/openapi';
import {
  CONTENT_TYPES as ADAPTER_CONTENT_TYPES,
  type ContentType as AdapterContentType,
} from '../../../server/channels/channel-adapter';
import { defaultSettings, settingsSchema } from '../../../server/config/settings-schema';
import type { AttemptOutcome } from '../../../server/db/models/delivery-attempt';
import type { DeliveryStatus as ModelDeliveryStatus } from '../../../server/db/models/delivery';
import type { SendCredential, SendStatus } from '../../../server/db/models/send';
import { IMPORT_KINDS as REPORT_KINDS } from '../../../server/features/import/message-nest/report';
import { DELIVERY_STATUSES as QUEUE_STATUSES } from '../../../server/queue/delivery-transitions';

const ROOT = join(__dirname, '../../..');

/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is read as loose JSON */

const contractRoutes = routesOf({
  ...consoleRoutes,
  ...publicRoutes,
  send: sendRoutes,
  hooks: hookRoutes,
});
const label = (spec: RouteSpec) => `${spec.method.toUpperCase()} ${spec.path}`;

describe('the contract and the server agree on their shared lists', () => {
  it('content types, delivery statuses and import kinds are the server’s, in order', () => {
    expect(CONTENT_TYPES).toEqual(ADAPTER_CONTENT_TYPES);
    expect(DELIVERY_STATUSES).toEqual(QUEUE_STATUSES);
    expect(IMPORT_KINDS).toEqual(REPORT_KINDS);
  });

  it('the enums the contract answers are the models’ types', () => {
    expectTypeOf<ContentType>().toEqualTypeOf<AdapterContentType>();
    expectTypeOf<DeliveryStatus>().toEqualTypeOf<ModelDeliveryStatus>();
    expectTypeOf<z.infer<typeof sendStatusSchema>>().toEqualTypeOf<SendStatus>();
    expectTypeOf<
      NonNullable<z.infer<typeof sendSchema>['credential']>
    >().toEqualTypeOf<SendCredential>();
    expectTypeOf<z.infer<typeof attemptSchema>['outcome']>().toEqualTypeOf<AttemptOutcome>();
  });

  it('the settings row builds on the contract’s rules: it refuses what a patch may not set, and its defaults pass them', () => {
    expect(settingsPatchBody.parse(defaultSettings)).toEqual(defaultSettings);
    const refused: unknown[] = [
      { publicBaseUrl: 'ftp://x' },
      { retry: { jitter: 2 } },
      { retention: { sendsDays: -1 } },
      { sendApi: { httpStatus: 'sometimes' } },
      { allowTaskId: 'yes' },
      { v1WaitMs: 120_001 },
    ];
    for (const sample of refused) {
      expect(settingsPatchBody.safeParse(sample).success, JSON.stringify(sample)).toBe(false);
      expect(settingsSchema.safeParse(sample).success, JSON.stringify(sample)).toBe(false);
    }
    expect(settingsSchema.parse({ publicBaseUrl: 'https://herald.example.com/' })).toMatchObject({
      publicBaseUrl: 'https://herald.example.com',
      retry: defaultSettings.retry,
    });
  });
});

describe('the audit log’s actions', () => {
  const serverSource = (dir: string): string =>
    readdirSync(dir, { withFileTypes: true })
      .map((e) =>
        e.isDirectory()
          ? serverSource(join(dir, e.name))
          : e.name.endsWith('.ts')
            ? readFileSync(join(dir, e.name), 'utf8')
            : '',
      )
      .join('\n');

  it('each action in AUDIT_ACTIONS is one the server records, once in the list', () => {
    const source = serverSource(join(ROOT, 'server'));
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
    for (const action of AUDIT_ACTIONS) expect(source, action).toContain(`'${action}'`);
  });

  it('docs/console-api.md names each of them', () => {
    const docs = readFileSync(join(ROOT, 'docs/console-api.md'), 'utf8');
    const section = docs.slice(docs.indexOf('What is recorded, by action'));
    for (const action of AUDIT_ACTIONS) expect(section, action).toContain(`\`${action}\``);
  });
});

describe('the route tables', () => {
  it('no two routes share a method and a path', () => {
    const labels = contractRoutes.map(label);

    expect(labels.filter((l, i) => labels.indexOf(l) !== i)).toEqual([]);
  });

  it('console routes live under /api/console, public ones under /api/public, sends at theirs', () => {
    for (const spec of routesOf(consoleRoutes)) expect(spec.path).toMatch(/^\/api\/console\//);
    // Files sent with messages keep the short address they were published with (issue 43 §2).
    for (const spec of routesOf(publicRoutes)) {
      expect(spec.path).toMatch(/^\/api\/(public\/|files\/\{id\}\/\{filename\}$)/);
    }
    for (const spec of routesOf({ sendRoutes })) {
      expect(spec.path).toMatch(/^\/api\/v[12]\/message\/send$/);
      expect([spec.method, spec.public]).toEqual(['post', true]);
    }
    for (const spec of routesOf({ hookRoutes })) {
      expect(spec.path).toMatch(/^\/api\/hooks\/\{preset\}/);
      expect([spec.method, spec.public]).toEqual(['post', true]);
    }
    expect(CONSOLE_BASE).toBe('/api/console');
  });

  it('a route’s params schema names exactly its {path} parameters', () => {
    for (const spec of contractRoutes) {
      const inPath = [...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

      expect(Object.keys(spec.params?.shape ?? {}), label(spec)).toEqual(inPath);
    }
  });

  it('every route either answers the envelope with a response schema or says what else', () => {
    for (const spec of contractRoutes) {
      expect(spec.response === undefined, label(spec)).toBe(spec.answers !== undefined);
      expect(spec.body !== undefined && spec.rawBody !== undefined, label(spec)).toBe(false);
    }
  });
});

describe('openApiDocument()', () => {
  const doc = openApiDocument('0.0.0-test') as any;
  const operation = (spec: RouteSpec) => doc.paths[spec.path]?.[spec.method];

  it('describes every route of the tables, and no console route beside them', () => {
    const documented = Object.entries(doc.paths as Record<string, object>).flatMap(
      ([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );

    expect(documented.filter((l) => l.includes(' /api/console/')).sort()).toEqual(
      contractRoutes
        .filter((s) => s.path.startsWith('/api/console/'))
        .map(label)
        .sort(),
    );
    for (const spec of contractRoutes) expect(operation(spec), label(spec)).toBeDefined();
    expect(Object.keys(doc.paths).filter((path) => !path.startsWith('/api/console/'))).toEqual([
      '/api/v1/message/send',
      '/api/v2/message/send',
      '/api/hooks/{preset}/{token}',
      '/api/hooks/{preset}',
      '/api/public/preview/{key}',
      '/api/public/token-kind',
      '/api/files/{id}/{filename}',
    ]);
  });

  it('describes the send APIs from their schemas: null for "not sent", the key header, refusals', () => {
    const v1 = operation(sendRoutes.v1);
    const v2 = operation(sendRoutes.v2);
    const body = (op: any) => {
      const ref: string = op.requestBody.content['application/json'].schema.$ref;
      return doc.components.schemas[ref.split('/').at(-1)!];
    };

    expect([v1.requestBody.required, v2.requestBody.required]).toEqual([true, true]);
    // Either as JSON or as a form carrying it in payload_json, files beside it (issue 43 §2).
    for (const op of [v1, v2]) {
      expect(Object.keys(op.requestBody.content)).toEqual([
        'application/json',
        'multipart/form-data',
      ]);
      expect(op.requestBody.content['multipart/form-data'].schema.required).toEqual([
        'payload_json',
      ]);
    }
    expect(body(v1).required).toEqual(['title']);
    expect(body(v1).properties.at_all).toEqual({ type: ['boolean', 'null'] });
    expect(body(v1).properties.title).toEqual({ type: 'string', minLength: 1, maxLength: 1000 });
    expect(body(v2).required).toEqual(['token', 'title']);
    expect(body(v2).properties.placeholders.anyOf[0].additionalProperties).toEqual({
      type: ['string', 'number', 'boolean', 'null'],
    });
    for (const op of [v1, v2]) {
      expect(op.parameters).toEqual([
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      ]);
      expect(op.security).toEqual([]);
      expect(Object.keys(op.responses)).toEqual(
        expect.arrayContaining(['200', '400', '429', '500', 'default']),
      );
    }
    expect(Object.keys(v1.responses)).toEqual(expect.arrayContaining(['401', '404']));
    expect(v1.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/V1Answer',
    });
  });

  it('gives each route its parameters, its body and its answer in the envelope', () => {
    for (const spec of contractRoutes) {
      const op = operation(spec);
      const names = (where: string) =>
        op.parameters.filter((p: any) => p.in === where).map((p: any) => p.name);

      expect(names('path'), label(spec)).toEqual(Object.keys(spec.params?.shape ?? {}));
      expect(names('header'), label(spec)).toEqual(Object.keys(spec.headers?.shape ?? {}));
      expect(names('query'), label(spec)).toEqual(Object.keys(spec.query?.shape ?? {}));
      expect(op.requestBody !== undefined, label(spec)).toBe(
        spec.body !== undefined || spec.rawBody !== undefined,
      );
      expect(op.security, label(spec)).toEqual(spec.public ? [] : [{ session: [] }]);
      if (spec.response) {
        const envelope = op.responses['200'].content['application/json'].schema;
        expect(envelope.required, label(spec)).toEqual(['code', 'msg', 'data']);
        const name = namedSchemas.get(spec.response)?.id;
        if (name) {
          expect(envelope.properties.data, label(spec)).toEqual({
            $ref: `#/components/schemas/${name}`,
          });
        } else {
          expect(envelope.properties.data, label(spec)).toMatchObject({ type: expect.anything() });
        }
      }
      expect(op.responses.default.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/Refusal',
      });
    }
  });

  it('lists named schemas once and every reference in it resolves', () => {
    const text = JSON.stringify(doc);
    const refs = new Set(
      [...text.matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]),
    );

    expect([...refs].filter((id) => !(id in doc.components.schemas))).toEqual([]);
    expect(text).not.toContain('#/$defs/');
    // Each kind's config is described field by field, as answered and as sent.
    const answered = doc.components.schemas.Channel.oneOf;
    expect(answered.map((c: any) => c.properties.type.const)).toEqual([...CHANNEL_TYPES]);
    expect(Object.keys(answered[0].properties.config.properties)).toEqual(
      Object.keys(CHANNEL_CONFIGS.email.schema.shape),
    );
    const created = operation(consoleRoutes.channels.create).requestBody.content['application/json']
      .schema.oneOf;
    expect(created.map((c: any) => c.properties.config.required ?? [])[0]).toEqual([
      'host',
      'port',
      'secure',
      'from',
    ]);
    const edited = operation(consoleRoutes.channels.update).requestBody.content['application/json']
      .schema.anyOf;
    expect(edited).toHaveLength(CHANNEL_TYPES.length + 1);
    expect(edited[0].properties.config.properties.password.anyOf).toContainEqual({
      type: 'string',
      const: '******',
    });
    // A request body is what a client may send: fields with defaults are optional.
    const addInstance = operation(consoleRoutes.tasks.addInstance);
    expect(addInstance.requestBody.content['application/json'].schema.required).toEqual([
      'channelId',
      'contentType',
    ]);
  });
});
