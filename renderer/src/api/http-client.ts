import type { BodyOf, Envelope, QueryOf, ResponseOf, RouteSpec } from '@contract';

/**
 * The console's one way to reach the server: fetch, JSON in and out (or a raw body out), and
 * the contract's envelope `{code, msg, data}` unwrapped into either the data or an ApiError that
 * carries the server's code and msg exactly as sent. Console calls send the session cookie and
 * send the user to sign-in on 401; public calls (share links) opt out of both.
 *
 * The api modules call {@link call} with a route of the contract (contract/, imported for its
 * types only: no zod in the bundle), so its method, path, query, body and answer are the ones
 * the server validates with, and vue-tsc fails when the two drift apart.
 */

export const API_BASE = '/api/console';
/** Routes anyone may call, without a session (docs/console-api.md, "Share links"). */
export const PUBLIC_API_BASE = '/api/public';

/** A failed call: `code` is the envelope code (or HTTP status; 0 when the server was unreachable). */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly msg: string,
    /** The envelope's data with the refusal, when the server sent some (sign-in's `twoFactorRequired`). */
    readonly data: unknown = null,
  ) {
    super(msg);
    this.name = 'ApiError';
  }
}

/** A body sent as it is, not as JSON: a file upload. */
export interface RawBody {
  data: Blob | ArrayBuffer | string;
  /** Sent as Content-Type; the route must accept it (only the import does). */
  contentType: string;
}

export interface RequestOptions {
  /** Query parameters; undefined, null and '' are left out. */
  query?: Record<string, string | number | boolean | undefined | null>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is instead of `body`. */
  raw?: RawBody;
  /**
   * Whether a 401 sends the user to sign-in. Off for the sign-in calls themselves, where a
   * 401 means "wrong password" and must be shown on the form, and for public calls, whose
   * pages work signed out.
   */
  redirectOn401?: boolean;
  /** The API the path is under: the console's (default) or PUBLIC_API_BASE. */
  base?: string;
  /** 'omit' for public calls: a share link must not depend on (or carry) the session. */
  credentials?: RequestCredentials;
}

let unauthorizedHandler: (() => void) | null = null;
let forbiddenHandler: (() => void) | null = null;

/** Registers what happens when the session is gone (the router sends the user to sign-in). */
export function onUnauthorized(handler: (() => void) | null): void {
  unauthorizedHandler = handler;
}

/**
 * Registers what happens when a signed-in call is refused (403): the person's standing may have
 * changed since the page loaded (a lower role, two-factor now required), so the router reads it
 * again and moves them to a page they may use.
 */
export function onForbidden(handler: (() => void) | null): void {
  forbiddenHandler = handler;
}

function isEnvelope(value: unknown): value is Envelope<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Envelope<unknown>).code === 'number' &&
    'msg' in value
  );
}

/** Builds `<base>/<path>?<query>`, the base being the console API's unless given. */
export function apiUrl(path: string, query?: RequestOptions['query'], base = API_BASE): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const qs = params.toString();
  return `${base}${path}${qs ? `?${qs}` : ''}`;
}

function requestInit(method: string, options: RequestOptions): RequestInit {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const init: RequestInit = { method, credentials: options.credentials ?? 'same-origin', headers };
  if (options.raw) {
    headers['Content-Type'] = options.raw.contentType;
    init.body = options.raw.data;
  } else if (method !== 'GET' && method !== 'HEAD') {
    // Mutations must be JSON (the server's CSRF rule), even when there is nothing to send.
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body ?? {});
  }
  return init;
}

/** Sends one API call and resolves with its `data`. */
export async function request<T>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(apiUrl(path, options.query, options.base), requestInit(method, options));
  } catch (err) {
    throw new ApiError(0, `Network error: ${(err as Error).message || 'server unreachable'}`);
  }

  let payload: unknown = null;
  const text = await res.text();
  if (text) {
    try {
      payload = JSON.parse(text);
    } catch {
      payload = null;
    }
  }

  const envelope = isEnvelope(payload) ? payload : null;
  const code = envelope ? envelope.code : res.status;
  if (code === 401 || res.status === 401) {
    if (options.redirectOn401 !== false) unauthorizedHandler?.();
    throw new ApiError(401, envelope?.msg || 'Unauthorized', envelope?.data ?? null);
  }
  if (!envelope) {
    throw new ApiError(res.status || 0, `HTTP ${res.status} ${res.statusText}`.trim());
  }
  if (code === 403 && options.redirectOn401 !== false) forbiddenHandler?.();
  if (code !== 200 || !res.ok) {
    throw new ApiError(code === 200 ? res.status : code, envelope.msg, envelope.data ?? null);
  }
  return envelope.data as T;
}

/** The API a route is under: the console's, or the public one (share links). */
type BaseOf<S extends RouteSpec> = S['path'] extends `${typeof API_BASE}/${string}`
  ? typeof API_BASE
  : typeof PUBLIC_API_BASE;

/** `{id}` is a number, any other `{param}` a string: `/tasks/{id}/token` → `/tasks/${number}/token`. */
type FilledPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}`
  ? `${Head}${Name extends 'id' ? number : string}${FilledPath<Tail>}`
  : P;

/** A route's path below its API's base, as a call spells it. */
export type PathOf<S extends RouteSpec> = S['path'] extends `${BaseOf<S>}${infer Rest}`
  ? FilledPath<Rest>
  : never;

/**
 * What a call of route `S` sends besides its path: its query and JSON body as the contract
 * takes them, and the public base for a public route.
 */
export type CallOptions<S extends RouteSpec> = Omit<RequestOptions, 'query' | 'body' | 'base'> & {
  query?: QueryOf<S>;
  body?: BodyOf<S>;
} & (BaseOf<S> extends typeof API_BASE ? { base?: never } : { base: typeof PUBLIC_API_BASE });

/**
 * Calls a route of the contract, named by its type
 * (`call<Routes['get']>('GET', `/tasks/${id}`)`): the method and path must be the route's, the
 * query and body its schemas' input, and the answer is its response schema's type.
 */
export function call<S extends RouteSpec>(
  method: Uppercase<S['method']>,
  path: PathOf<S>,
  ...[options]: BaseOf<S> extends typeof API_BASE
    ? [options?: CallOptions<S>]
    : [options: CallOptions<S>]
): Promise<ResponseOf<S>> {
  return request<ResponseOf<S>>(method, path, (options ?? {}) as RequestOptions);
}
