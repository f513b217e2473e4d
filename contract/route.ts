import type { z } from 'zod';

/** The HTTP methods the console API uses (HEAD is answered wherever GET is). */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * One route of Herald's HTTP API (console, public and send), as the server validates it, the
 * OpenAPI document describes it and the console calls it. Schemas describe the JSON on the wire: request schemas parse what
 * the client sent (coercing query strings, filling defaults), `response` is the envelope's
 * `data` on success.
 */
export interface RouteSpec {
  method: Method;
  /** The full path, with path parameters in braces: `/api/console/channels/{id}`. */
  path: string;
  /** One line for the OpenAPI document and whoever reads the table. */
  summary: string;
  /** Answers without a session; every other console route answers 401 without one. */
  public?: true;
  /** Path parameters, one key per `{name}` in `path`. */
  params?: z.ZodObject;
  /** Request headers a route reads (the send APIs' `Idempotency-Key`). */
  headers?: z.ZodObject;
  /** The query string; an empty value (`?q=`) counts as not given. */
  query?: z.ZodObject;
  /** The JSON body (a missing body reads as `{}`); routes without it ignore any body. */
  body?: z.ZodType;
  /** A body that is not JSON: the raw bytes of a file. */
  rawBody?: 'application/octet-stream';
  /**
   * The JSON body may come as `multipart/form-data` instead: a `payload_json` part holding it
   * and `files[]` parts, the files sent with the message (issue 43 §2).
   */
  multipart?: true;
  /** The envelope's `data` on success; absent for routes that do not answer the envelope. */
  response?: z.ZodType;
  /**
   * What a route answers instead of the envelope (an attachment: a file to download; an image:
   * the bytes of a proxied image).
   */
  answers?: 'event-stream' | 'redirect' | 'attachment' | 'image';
  /** Refusals worth naming one by one, status → when (every route may answer others). */
  refusals?: Partial<Record<number, string>>;
}

/** Declares a route, keeping its literal types (method, path and schemas) for both ends. */
export function route<const S extends RouteSpec>(spec: S): S {
  return spec;
}

/** Every route of a table of feature → name → route, in order. */
export function routesOf(table: Record<string, Record<string, RouteSpec>>): RouteSpec[] {
  return Object.values(table).flatMap((routes) => Object.values(routes));
}

/** The envelope's `data` a route answers on success. */
export type ResponseOf<S extends RouteSpec> = S['response'] extends z.ZodType
  ? z.output<S['response']>
  : never;

/** The JSON body a client sends (before defaults). */
export type BodyOf<S extends RouteSpec> = S['body'] extends z.ZodType ? z.input<S['body']> : never;

/** The query a client sends (before coercion and defaults). */
export type QueryOf<S extends RouteSpec> = S['query'] extends z.ZodType
  ? z.input<S['query']>
  : never;
