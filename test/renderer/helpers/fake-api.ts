import { vi } from 'vitest';

/** One request the console made, as the fake server saw it. */
export interface FakeRequest {
  method: string;
  /** Path below /api/console, without the query string. */
  path: string;
  query: URLSearchParams;
  /** The JSON body, parsed. */
  body: unknown;
  /** A body sent as it is (a file upload), untouched. */
  rawBody: BodyInit | null | undefined;
  headers: Record<string, string>;
  credentials: RequestCredentials | undefined;
}

/** What a route answers: an envelope (HTTP status = code), or a raw Response. */
export type FakeAnswer = { code: number; msg: string; data: unknown } | Response;
export type FakeHandler = (req: FakeRequest) => FakeAnswer | Promise<FakeAnswer>;

/** A success envelope. */
export const ok = (data: unknown): FakeAnswer => ({ code: 200, msg: 'success', data });
/** An error envelope. */
export const fail = (code: number, msg: string): FakeAnswer => ({ code, msg, data: null });

/**
 * Replaces fetch with a tiny in-memory console API: routes are "METHOD /path" with `:param`
 * segments; unknown routes answer 404 in the envelope, as the real server does.
 */
export function installFakeApi(routes: Record<string, FakeHandler>) {
  const calls: FakeRequest[] = [];
  const compiled = Object.entries(routes).map(([key, handler]) => {
    const [method, pattern] = key.split(' ');
    const regex = new RegExp(`^${pattern.replace(/:[a-zA-Z]+/g, '[^/]+')}$`);
    return { method, regex, handler };
  });

  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://herald.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const path = url.pathname.replace(/^\/api\/console/, '');
    const headers = (init.headers ?? {}) as Record<string, string>;
    const isJson = headers['Content-Type'] === 'application/json';
    const req: FakeRequest = {
      method,
      path,
      query: url.searchParams,
      body: isJson && typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      rawBody: isJson ? undefined : init.body,
      headers,
      credentials: init.credentials,
    };
    calls.push(req);
    const route = compiled.find((r) => r.method === method && r.regex.test(path));
    const answer = route ? await route.handler(req) : fail(404, `no route ${method} ${path}`);
    if (answer instanceof Response) return answer;
    return new Response(JSON.stringify(answer), {
      status: answer.code,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}
