import { z } from 'zod';

/**
 * The schemas that have a name of their own: the OpenAPI document lists them once, under
 * components.schemas, and refers to them by name.
 */
export const namedSchemas = z.registry<{ id?: string; description?: string }>();

/** Gives a schema its name in the OpenAPI document (`Channel`, `Timestamp`). */
export function named<T extends z.ZodType>(id: string, schema: T): T {
  namedSchemas.add(schema, { id });
  return schema;
}

/** Gives a field its description in the OpenAPI document. */
export function described<T extends z.ZodType>(description: string, schema: T): T {
  namedSchemas.add(schema, { description });
  return schema;
}

const documentation = new WeakMap<z.ZodType, z.ZodType>();

/**
 * Has the OpenAPI document describe `schema` as `as`: for a check that passes its input on as
 * sent (a channel's config, a channel edit), whose own JSON Schema would be a bare object.
 */
export function documentAs<T extends z.ZodType>(schema: T, as: z.ZodType): T {
  documentation.set(schema, as);
  return schema;
}

/** The schema the OpenAPI document describes `schema` with, when it is not `schema` itself. */
export function documentationOf(schema: z.ZodType): z.ZodType | undefined {
  return documentation.get(schema);
}

/** Where the console API lives; every console route's path starts with it. */
export const CONSOLE_BASE = '/api/console';

/** The formats a body is written in: an instance's contentType, a hosted message's format. */
export const CONTENT_TYPES = ['text', 'html', 'markdown'] as const;
export const contentTypeSchema = named('ContentType', z.enum(CONTENT_TYPES));
export type ContentType = z.infer<typeof contentTypeSchema>;

/** A time as the server sends it: ISO 8601 in UTC, e.g. 2026-11-23T10:00:00.000Z. */
export const timestampSchema = named('Timestamp', z.iso.datetime());

/** A row id in a path: 1 to 15 digits, nothing else (no sign, no spaces, no exponent). */
const pathId = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a positive integer')
  .transform(Number)
  .refine((n) => Number.isSafeInteger(n) && n > 0, 'must be a positive integer');

/** `{id}` in a path. */
export const idParams = z.object({ id: pathId });

/** A positive integer id in a query string (`?taskId=3`). */
export const queryId = z.coerce.number<number | string>().int().positive().optional();

/**
 * A yes/no switch in a query string: `1` or `true` is yes, anything else (or nothing) no, so
 * `?unread=1`, `?unread=true` and a plain link without it all work.
 */
export const queryFlag = z
  .string()
  .optional()
  .transform((v) => v === '1' || v === 'true');

/** `?page=&pageSize=` of the console's lists: page from 1, pageSize 1 to 100 (default 20). */
export const pagingQuery = z.object({
  page: z.coerce.number<number | string>().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number<number | string>().int().min(1).max(100).default(20),
});

/** The console's list shape: one page of rows and how many there are in all. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.strictObject({
    items: z.array(item),
    total: z.number().int().min(0),
    page: z.number().int().min(1),
    pageSize: z.number().int().min(0),
  });
}

/** What a deletion and other answers without a result carry as `data`. */
export const nothing = z.null();

/** A name a person gives a channel, task or template. */
export const nameSchema = z.string({ error: 'is required' }).trim().min(1, 'is required').max(100);

/** `{token}`: a task's or template's send token. */
export const tokenResponse = z.strictObject({ token: z.string() });
