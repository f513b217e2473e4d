import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryHistory } from 'vue-router';
import { createPinia, setActivePinia } from 'pinia';

import {
  ApiError,
  PUBLIC_API_BASE,
  onUnauthorized,
  request,
} from '../../renderer/src/api/http-client';
import { importApi } from '../../renderer/src/api/import-api';
import { publicApi } from '../../renderer/src/api/public-api';
import {
  createAppRouter,
  followStandingOnForbidden,
  redirectToSignInOnUnauthorized,
} from '../../renderer/src/router';
import { useSessionStore } from '../../renderer/src/stores/session-store';
import { fail, installFakeApi, ok } from './helpers/fake-api';

afterEach(() => {
  onUnauthorized(null);
  vi.unstubAllGlobals();
});

describe('http-client request()', () => {
  it('request() resolves with data when the envelope says 200', async () => {
    installFakeApi({
      'GET /tasks': () => ok({ items: [{ id: 1 }], total: 1, page: 1, pageSize: 20 }),
    });

    const data = await request<{ total: number }>('GET', '/tasks');

    expect(data.total).toBe(1);
  });

  it('request() throws an ApiError with the server code and Chinese msg as sent', async () => {
    installFakeApi({ 'POST /templates': () => fail(400, '模板已禁用') });

    const err = await request('POST', '/templates', { body: { name: 'x' } }).catch(
      (e: unknown) => e,
    );

    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(400);
    expect((err as ApiError).msg).toBe('模板已禁用');
  });

  it('request() sends JSON with the same-origin cookie on mutations, even without a body', async () => {
    const { calls } = installFakeApi({ 'POST /logout': () => ok(null) });

    await request('POST', '/logout');

    expect(calls[0].credentials).toBe('same-origin');
    expect(calls[0].headers['Content-Type']).toBe('application/json');
    expect(calls[0].body).toEqual({});
  });

  it('request() leaves empty query parameters out', async () => {
    const { calls } = installFakeApi({ 'GET /logs': () => ok({ items: [], total: 0 }) });

    await request('GET', '/logs', { query: { q: '', status: undefined, page: 2, api: null } });

    expect([...calls[0].query.keys()]).toEqual(['page']);
  });

  it('request() throws code 0 when the server cannot be reached', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );

    const err = (await request('GET', '/status').catch((e: unknown) => e)) as ApiError;

    expect(err.code).toBe(0);
    expect(err.msg).toContain('Failed to fetch');
  });

  it('request() throws the HTTP status when the answer is not an envelope', async () => {
    installFakeApi({
      'GET /stats': () => new Response('<html>Bad gateway</html>', { status: 502 }),
    });

    const err = (await request('GET', '/stats').catch((e: unknown) => e)) as ApiError;

    expect(err.code).toBe(502);
  });

  it('request() calls the unauthorized handler on 401 unless the call opts out', async () => {
    installFakeApi({
      'GET /me': () => fail(401, '请先登录'),
      'POST /login': () => fail(401, '用户名或密码错误'),
    });
    const handler = vi.fn();
    onUnauthorized(handler);

    await request('GET', '/me').catch(() => undefined);
    const loginErr = (await request('POST', '/login', { body: {}, redirectOn401: false }).catch(
      (e: unknown) => e,
    )) as ApiError;

    expect(handler).toHaveBeenCalledTimes(1);
    expect(loginErr.msg).toBe('用户名或密码错误');
  });
});

describe('http-client raw bodies and public calls', () => {
  it('request() sends a raw body as it is, with its content type, and unwraps the envelope', async () => {
    const { calls } = installFakeApi({ 'POST /import/message-nest': () => ok({ dryRun: true }) });
    const file = new Blob([new Uint8Array([0x53, 0x51, 0x4c])]);

    const data = await request<{ dryRun: boolean }>('POST', '/import/message-nest', {
      query: { dryRun: 1 },
      raw: { data: file, contentType: 'application/octet-stream' },
    });

    expect(data).toEqual({ dryRun: true });
    expect(calls[0].headers['Content-Type']).toBe('application/octet-stream');
    expect(calls[0].rawBody).toBe(file);
    expect(calls[0].body).toBeUndefined();
    expect(calls[0].credentials).toBe('same-origin');
  });

  it('importApi.messageNest() uploads the file raw and gets the server msg and the 401 redirect like any call', async () => {
    let answer = fail(400, 'not a Message Nest database: table message_nest_settings is missing');
    const { calls } = installFakeApi({ 'POST /import/message-nest': () => answer });
    const handler = vi.fn();
    onUnauthorized(handler);
    const file = new Blob(['SQLite format 3']);

    const refused = (await importApi
      .messageNest(file, { dryRun: true, withLogs: false })
      .catch((e: unknown) => e)) as ApiError;
    answer = fail(401, 'session expired');
    await importApi.messageNest(file, { dryRun: false, withLogs: true }).catch(() => undefined);

    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.msg).toBe('not a Message Nest database: table message_nest_settings is missing');
    expect(calls[0].query.get('dryRun')).toBe('1');
    expect(calls[0].query.has('withLogs')).toBe(false);
    expect(calls[0].rawBody).toBe(file);
    expect(calls[1].query.get('withLogs')).toBe('1');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('request() under PUBLIC_API_BASE omits the cookie and, with redirectOn401 off, leaves the visitor where they are', async () => {
    const { calls } = installFakeApi({
      'GET /api/public/preview/:key': () => fail(401, 'not for you'),
    });
    const handler = vi.fn();
    onUnauthorized(handler);

    const err = (await request('GET', '/preview/abc', {
      base: PUBLIC_API_BASE,
      credentials: 'omit',
      redirectOn401: false,
    }).catch((e: unknown) => e)) as ApiError;

    expect(calls[0].path).toBe('/api/public/preview/abc');
    expect(calls[0].credentials).toBe('omit');
    expect(err.code).toBe(401);
    expect(err.msg).toBe('not for you');
    expect(handler).not.toHaveBeenCalled();
  });

  it('publicApi.preview() asks without the session, never redirects, and passes 404 and 429 through', async () => {
    let answer = fail(404, 'no message has this link: it was revoked, deleted or mistyped');
    const { calls } = installFakeApi({ 'GET /api/public/preview/:key': () => answer });
    const handler = vi.fn();
    onUnauthorized(handler);

    const gone = (await publicApi.preview('a/b').catch((e: unknown) => e)) as ApiError;
    answer = fail(429, 'too many previews from this address');
    const limited = (await publicApi.preview('k').catch((e: unknown) => e)) as ApiError;
    answer = fail(401, 'Unauthorized');
    await publicApi.preview('k').catch(() => undefined);

    expect(calls[0].path).toBe('/api/public/preview/a%2Fb');
    expect(calls.every((c) => c.credentials === 'omit')).toBe(true);
    expect([gone.code, limited.code]).toEqual([404, 429]);
    expect(gone.msg).toMatch(/revoked/);
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('redirectToSignInOnUnauthorized()', () => {
  it('redirectToSignInOnUnauthorized() sends the user to sign-in with the page to return to when a call answers 401', async () => {
    setActivePinia(createPinia());
    let signedIn = true;
    installFakeApi({
      'GET /status': () =>
        ok({
          setupRequired: false,
          version: '1.0.0',
          user: signedIn ? { id: 1, username: 'admin', role: 'admin' } : null,
        }),
      'GET /channels': () => fail(401, 'session expired'),
    });
    const router = createAppRouter(createMemoryHistory());
    redirectToSignInOnUnauthorized(router);
    await router.push('/channels');
    expect(router.currentRoute.value.name).toBe('channels');
    signedIn = false;

    await request('GET', '/channels').catch(() => undefined);

    // The sign-in page is loaded lazily, so the navigation settles a little later.
    await vi.waitFor(() => expect(router.currentRoute.value.name).toBe('sign-in'), {
      timeout: 5000,
    });
    expect(router.currentRoute.value.query.redirect).toBe('/channels');
    expect(useSessionStore().signedIn).toBe(false);
  });
});

describe('followStandingOnForbidden()', () => {
  it('reads the person again on a 403 and moves them where they may be', async () => {
    setActivePinia(createPinia());
    let standing: 'viewer-enrolled' | 'viewer-must-enrol' = 'viewer-enrolled';
    const user = () => ({
      id: 3,
      username: 'ann',
      role: 'viewer',
      twoFactor: standing === 'viewer-enrolled' ? 'on' : 'required',
    });
    installFakeApi({
      'GET /status': () => ok({ setupRequired: false, version: '1.0.0', user: user() }),
      'GET /me': () => ok({ user: user() }),
      'GET /logs': () =>
        standing === 'viewer-enrolled'
          ? ok({ items: [], total: 0, page: 1, pageSize: 20, totalIsCapped: false })
          : fail(403, 'two-factor: your administrator requires it; set it up under Account'),
    });
    const router = createAppRouter(createMemoryHistory());
    followStandingOnForbidden(router);
    await router.push('/logs');
    expect(router.currentRoute.value.name).toBe('logs');

    // Another window's administrator turns the requirement on: this page's next call is refused.
    standing = 'viewer-must-enrol';
    await request('GET', '/logs').catch(() => undefined);

    await vi.waitFor(() => expect(router.currentRoute.value.name).toBe('account'), {
      timeout: 5000,
    });
    expect(useSessionStore().mustEnrol).toBe(true);
  });

  it('leaves a person on the page when the refusal was only that one action', async () => {
    setActivePinia(createPinia());
    const { calls } = installFakeApi({
      'GET /status': () =>
        ok({
          setupRequired: false,
          version: '1.0.0',
          user: { id: 3, username: 'ann', role: 'editor', twoFactor: 'off' },
        }),
      'GET /me': () => ok({ user: { id: 3, username: 'ann', role: 'editor', twoFactor: 'off' } }),
      'GET /settings': () => fail(403, 'forbidden: this needs the admin role; you are editor'),
    });
    const router = createAppRouter(createMemoryHistory());
    followStandingOnForbidden(router);
    await router.push('/logs');
    await request('GET', '/settings').catch(() => undefined);
    await vi.waitFor(() => expect(calls.some((c) => c.path === '/me')).toBe(true));
    await new Promise((r) => setTimeout(r, 50));
    expect(router.currentRoute.value.name).toBe('logs');
  });
});
