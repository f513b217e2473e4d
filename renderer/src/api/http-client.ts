/**
 * The console's one way to reach the server: same-origin fetch with the session cookie,
 * JSON in and out, and the contract's envelope `{code, msg, data}` unwrapped into either the
 * data or an ApiError that carries the server's code and msg exactly as sent.
 */

export const API_BASE = '/api/console';

/** A failed call: `code` is the envelope code (or HTTP status; 0 when the server was unreachable). */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly msg: string,
  ) {
    super(msg);
    this.name = 'ApiError';
  }
}

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

export interface RequestOptions {
  /** Query parameters; undefined, null and '' are left out. */
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  /**
   * Whether a 401 sends the user to sign-in. Off for the sign-in calls themselves, where a
   * 401 means "wrong password" and must be shown on the form.
   */
  redirectOn401?: boolean;
}

let unauthorizedHandler: (() => void) | null = null;

/** Registers what happens when the session is gone (the router sends the user to sign-in). */
export function onUnauthorized(handler: (() => void) | null): void {
  unauthorizedHandler = handler;
}

function isEnvelope(value: unknown): value is Envelope<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Envelope<unknown>).code === 'number' &&
    'msg' in value
  );
}

/** Builds `/api/console/<path>?<query>`. */
export function apiUrl(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const qs = params.toString();
  return `${API_BASE}${path}${qs ? `?${qs}` : ''}`;
}

/** Sends one console API call and resolves with its `data`. */
export async function request<T>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  const init: RequestInit = {
    method,
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  };
  // Mutations must be JSON (the server's CSRF rule), even when there is nothing to send.
  if (method !== 'GET' && method !== 'HEAD') {
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
    init.body = JSON.stringify(options.body ?? {});
  }

  let res: Response;
  try {
    res = await fetch(apiUrl(path, options.query), init);
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
    throw new ApiError(401, envelope?.msg || 'Unauthorized');
  }
  if (!envelope) {
    throw new ApiError(res.status || 0, `HTTP ${res.status} ${res.statusText}`.trim());
  }
  if (code !== 200 || !res.ok) {
    throw new ApiError(code === 200 ? res.status : code, envelope.msg);
  }
  return envelope.data as T;
}

export const http = {
  get: <T>(path: string, query?: RequestOptions['query']) => request<T>('GET', path, { query }),
  post: <T>(path: string, body?: unknown, options: Omit<RequestOptions, 'body'> = {}) =>
    request<T>('POST', path, { ...options, body }),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, { body }),
  patch: <T>(path: string, body?: unknown) => request<T>('PATCH', path, { body }),
  delete: <T = null>(path: string) => request<T>('DELETE', path),
};

/** The text to show for any error: the server's msg as sent, or the error's own message. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.msg;
  if (err instanceof Error) return err.message;
  return String(err);
}
