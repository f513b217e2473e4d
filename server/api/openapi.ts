import { z } from 'zod';

import {
  consoleRoutes,
  documentationOf,
  envelopeOf,
  errorEnvelopeSchema,
  hookRoutes,
  namedSchemas,
  publicRoutes,
  sendRoutes,
  type RouteSpec,
} from '../../contract';

/**
 * The OpenAPI 3.1 document served at GET /api/openapi.json, generated from the contract's
 * route tables (the send APIs, the inbound hooks, the console and the public preview): each route with its path,
 * header and query parameters, its body (`io: 'input'`: what a client may send, defaults
 * optional), its answer wrapped in the envelope and the refusals it names; schemas the contract
 * names (`named()`) are listed once under components.schemas.
 */

type JsonSchema = Record<string, unknown>;

/** The route tables, feature (the OpenAPI tag) → name → route. */
const TABLES: Record<string, Record<string, Record<string, RouteSpec>>> = {
  send: { send: sendRoutes },
  hooks: { hooks: hookRoutes },
  console: consoleRoutes,
  public: publicRoutes,
};

/** Turns schemas into JSON Schema, collecting the named ones for components.schemas. */
class SchemaWriter {
  readonly components: Record<string, JsonSchema> = {};

  /** A schema as JSON Schema (draft 2020-12, OpenAPI 3.1's dialect), named parts by reference. */
  write(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const {
      $schema: _dialect,
      $defs = {},
      ...rest
    } = z.toJSONSchema(schema, {
      io,
      metadata: namedSchemas,
      override: documented(io),
    }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    for (const [id, definition] of Object.entries($defs)) {
      const known = this.components[id];
      const written = toComponents(definition);
      if (known && JSON.stringify(known) !== JSON.stringify(written)) {
        // A schema with defaults or transforms reads differently as a request and an answer.
        throw new Error(`schema ${id} differs between its uses (${io}); name only one of them`);
      }
      this.components[id] = written;
    }
    return toComponents(rest);
  }
}

/**
 * Describes a schema the contract documents with another (`documentAs`: a check that passes its
 * input on as sent, such as a channel's config) by that other schema.
 */
function documented(io: 'input' | 'output') {
  return (ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void => {
    const as = documentationOf(ctx.zodSchema as z.ZodType);
    if (!as) return;
    const {
      $schema: _dialect,
      $defs,
      ...described
    } = z.toJSONSchema(as, {
      io,
      metadata: namedSchemas,
      override: documented(io),
    }) as JsonSchema;
    // Named schemas inside would be listed under the inner document's own $defs, and lost.
    if ($defs) throw new Error('a schema documented by another may not hold named schemas');
    for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
    Object.assign(ctx.jsonSchema, described);
  };
}

/** zod refers to named schemas under the document's own $defs; OpenAPI keeps them in components. */
function toComponents(schema: JsonSchema): JsonSchema {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/'),
  ) as JsonSchema;
}

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

function parameters(
  schemas: SchemaWriter,
  where: 'path' | 'header' | 'query',
  schema?: z.ZodObject,
) {
  if (!schema) return [];
  const { properties = {}, required = [] } = schemas.write(schema, 'input') as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.includes(name),
    schema: property,
  }));
}

function requestBody(schemas: SchemaWriter, spec: RouteSpec) {
  if (spec.rawBody) {
    return {
      requestBody: {
        required: true,
        content: { [spec.rawBody]: { schema: { type: 'string', format: 'binary' } } },
      },
    };
  }
  if (!spec.body) return {};
  const schema = schemas.write(spec.body, 'input');
  // A named body is a reference: whether it has required fields is in its component.
  const ref = typeof schema.$ref === 'string' ? schema.$ref.split('/').at(-1) : undefined;
  const { required: fields } = ref ? (schemas.components[ref] ?? {}) : schema;
  const required = Array.isArray(fields) && fields.length > 0;
  const content = spec.multipart ? { ...json(schema), ...multipartOf(schema) } : json(schema);
  return { requestBody: { required, content } };
}

/** The same body as a form, with the files beside it (docs/send-api.md "Attachments"). */
const multipartOf = (schema: JsonSchema) => ({
  'multipart/form-data': {
    schema: {
      type: 'object',
      required: ['payload_json'],
      properties: {
        payload_json: { ...schema, description: 'The JSON body, as text' },
        'files[]': { type: 'array', items: { type: 'string', format: 'binary' } },
      },
    },
    encoding: { payload_json: { contentType: 'application/json' } },
  },
});

function success(schemas: SchemaWriter, spec: RouteSpec) {
  if (spec.answers === 'event-stream') {
    return {
      '200': {
        description: 'Server-Sent Events (not the envelope); docs/console-api.md lists them',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
    };
  }
  if (spec.answers === 'redirect') return { '302': { description: 'A redirect' } };
  if (spec.answers === 'image') {
    return {
      '200': {
        description: 'The image itself (PNG, JPEG, GIF, WebP, AVIF, BMP or ICO), not the envelope',
        content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
      },
    };
  }
  if (spec.answers === 'attachment') {
    return {
      '200': {
        description: 'A file to download (Content-Disposition: attachment), not the envelope',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      },
    };
  }
  return {
    '200': {
      description: 'Success: the envelope with code 200',
      content: json(schemas.write(envelopeOf(spec.response ?? z.null()), 'output')),
    },
  };
}

function operation(schemas: SchemaWriter, spec: RouteSpec, tag: string, name: string) {
  const refusal = json(schemas.write(errorEnvelopeSchema, 'output'));
  return {
    operationId: `${tag}.${name}`,
    summary: spec.summary,
    tags: [tag],
    security: spec.public ? [] : [{ session: [] }],
    parameters: [
      ...parameters(schemas, 'path', spec.params),
      ...parameters(schemas, 'header', spec.headers),
      ...parameters(schemas, 'query', spec.query),
    ],
    ...requestBody(schemas, spec),
    responses: {
      ...success(schemas, spec),
      ...Object.fromEntries(
        Object.entries(spec.refusals ?? {}).map(([status, description]) => [
          status,
          { description, content: refusal },
        ]),
      ),
      default: {
        description:
          'Refused: msg says why, naming the field; code is the HTTP status (the send APIs answer HTTP 200 throughout with the always200 setting)',
        content: refusal,
      },
    },
  };
}

function generate(version: string) {
  const schemas = new SchemaWriter();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const features of Object.values(TABLES)) {
    for (const [tag, routes] of Object.entries(features)) {
      for (const [name, spec] of Object.entries(routes)) {
        paths[spec.path] = {
          ...paths[spec.path],
          [spec.method]: operation(schemas, spec, tag, name),
        };
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Herald',
      version,
      description: 'Message dispatch: send APIs (V1 tasks, V2 templates) and the console API.',
    },
    components: {
      schemas: schemas.components,
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'herald_session' } },
    },
    paths,
  };
}

const documents = new Map<string, ReturnType<typeof generate>>();

/** The document for this version of Herald, generated once. */
export function openApiDocument(version: string) {
  let document = documents.get(version);
  if (!document) {
    document = generate(version);
    documents.set(version, document);
  }
  return document;
}
