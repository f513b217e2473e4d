import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HostedMessage, Send } from '../../../server/db/models';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { rawRequest, type RawRequest } from '../../helpers/exact-request';

const ATTACKER = 'https://attacker.example';
const DASHBOARD = 'https://dash.example';

describe('cross-site requests (a web page driving Herald through the browser)', () => {
  let herald: TestHerald;
  let port: number;
  let own: string;
  let templateToken: string;
  let taskId: number;
  let taskToken: string;
  let hostedId: number;
  let rendererDir: string;

  beforeAll(async () => {
    // A stand-in for the built console, so its pages and history fallback are served.
    rendererDir = mkdtempSync(join(tmpdir(), 'herald-renderer-'));
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Herald</title>');
    // task_id on, as an install from before it was off by default keeps it: the guard alone
    // must stop the forged sends below.
    herald = await startTestHerald({
      corsOrigins: [DASHBOARD],
      rendererDir,
      settings: { allowTaskId: true },
    });
    port = herald.server.port;
    own = `http://127.0.0.1:${port}`;
    hostedId = (await herald.createChannel('hosted')).id;
    ({ token: templateToken } = await herald.createTemplate({ text: 'template body' }, [
      { channelId: hostedId, contentType: 'text' },
    ]));
    const task = await herald.createTask('cross-site task', [
      { channelId: hostedId, contentType: 'text' },
    ]);
    taskId = task.task.id;
    taskToken = task.token;
  });
  afterAll(async () => {
    await herald.close(true);
    rmSync(rendererDir, { recursive: true, force: true });
  });

  const call = (req: RawRequest) => rawRequest(port, req);
  const withCookie = (headers: Record<string, string>) => ({
    ...headers,
    Cookie: herald.console.cookie,
  });
  const storedTitled = (title: string) => HostedMessage.count({ where: { title } });

  it('a cross-site text/plain send with task_id is refused, and nothing is stored or delivered', async () => {
    const sends = await Send.count();
    const attacks: Record<string, string>[] = [
      { 'Sec-Fetch-Site': 'cross-site', Origin: ATTACKER, 'Content-Type': 'text/plain' },
      // Browsers without Fetch Metadata (or a LAN address over http) still send Origin.
      { Origin: ATTACKER, 'Content-Type': 'text/plain;charset=UTF-8' },
      { Origin: 'null', 'Content-Type': 'application/x-www-form-urlencoded' },
      {
        'Sec-Fetch-Site': 'same-site',
        Origin: 'http://127.0.0.1:3000',
        'Content-Type': 'text/plain',
      },
    ];
    for (const headers of attacks) {
      const v1 = await call({
        method: 'POST',
        path: '/api/v1/message/send',
        headers,
        body: JSON.stringify({ task_id: String(taskId), title: 'forged v1', text: 'x' }),
      });
      expect(v1.status, JSON.stringify(headers)).toBe(403);
      expect(v1.body.code).toBe(403);
      expect(v1.body.msg).toMatch(/cross-site request refused/);
      expect(v1.body.msg).toMatch(/HERALD_CORS_ORIGINS/);
      expect(v1.headers['access-control-allow-origin']).toBeUndefined();
      const v2 = await call({
        method: 'POST',
        path: '/api/v2/message/send',
        headers,
        body: JSON.stringify({ token: templateToken, title: 'forged v2' }),
      });
      expect(v2.status, JSON.stringify(headers)).toBe(403);
    }
    expect(await Send.count()).toBe(sends);
    expect(await storedTitled('forged v1')).toBe(0);
    expect(await storedTitled('forged v2')).toBe(0);
  });

  it('a cross-site multipart form (a page needs no preflight for one) is refused, and nothing is stored', async () => {
    const sends = await Send.count();
    const boundary = 'herald-forged-form';
    const form = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="payload_json"',
      '',
      JSON.stringify({ token: templateToken, title: 'forged upload' }),
      `--${boundary}`,
      'Content-Disposition: form-data; name="files[]"; filename="x.txt"',
      'Content-Type: text/plain',
      '',
      'forged file',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    for (const path of ['/api/v1/message/send', '/api/v2/message/send']) {
      const res = await call({
        method: 'POST',
        path,
        headers: {
          'Sec-Fetch-Site': 'cross-site',
          Origin: ATTACKER,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
        },
        body: form,
      });
      expect(res.status, path).toBe(403);
      expect(res.body.msg).toMatch(/cross-site request refused/);
    }
    expect(await Send.count()).toBe(sends);
    expect(await storedTitled('forged upload')).toBe(0);
  });

  it('another local web app (same site, other port) cannot rotate a token or mark all read with the cookie', async () => {
    const message = await herald.sendV2({ token: templateToken, title: 'unread one' });
    expect(message.status).toBe(200);
    await herald.waitFor(async () => (await storedTitled('unread one')) === 1);
    const unread = await herald.server.unreadCount((await herald.console.ok('GET', '/me')).user.id);
    expect(unread).toBeGreaterThan(0);

    const sameSite = { 'Sec-Fetch-Site': 'same-site', Origin: 'http://127.0.0.1:3000' };
    for (const path of [
      `/api/console/tasks/${taskId}/token/rotate`,
      '/api/console/messages/read-all',
    ]) {
      for (const headers of [sameSite, { Origin: 'http://localhost:3000' }]) {
        const res = await call({ method: 'POST', path, headers: withCookie(headers) });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.body.msg).toMatch(/cannot call the console API/);
        expect(res.body.msg).not.toMatch(/HERALD_CORS_ORIGINS/);
      }
    }
    const { token } = await herald.console.ok('GET', `/tasks/${taskId}/token`);
    expect(token).toBe(taskToken);
    expect(await herald.server.unreadCount((await herald.console.ok('GET', '/me')).user.id)).toBe(
      unread,
    );
  });

  it('a cross-site GET (<img>, <script>) of a console route reads nothing', async () => {
    for (const path of [
      '/api/console/channels',
      '/api/console/status',
      `/api/console/tasks/${taskId}/token`,
    ]) {
      const res = await call({
        path,
        headers: withCookie({ 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' }),
      });
      expect(res.status, path).toBe(403);
      expect(JSON.stringify(res.body)).not.toContain(taskToken);
    }
  });

  it("the console's own requests (same origin) keep working, JSON and bodiless", async () => {
    const sameOrigin = { 'Sec-Fetch-Site': 'same-origin', Origin: own };
    const list = await call({ path: '/api/console/channels', headers: withCookie(sameOrigin) });
    expect(list.status).toBe(200);
    const created = await call({
      method: 'POST',
      path: '/api/console/channels',
      headers: withCookie({ ...sameOrigin, 'Content-Type': 'application/json' }),
      body: JSON.stringify({ name: 'same-origin channel', type: 'hosted', config: {} }),
    });
    expect(created.status).toBe(200);
    const readAll = await call({
      method: 'POST',
      path: '/api/console/messages/read-all',
      headers: withCookie({ ...sameOrigin, 'Content-Type': 'application/json' }),
      body: '{}',
    });
    expect(readAll.status).toBe(200);
    // Addressed as localhost, the page's origin is http://localhost:<port>.
    const local = await call({
      path: '/api/console/status',
      headers: { Host: `localhost:${port}`, Origin: `http://localhost:${port}` },
    });
    expect(local.status).toBe(200);
  });

  it("the console's event stream (EventSource, same origin) opens", async () => {
    const firstChunk = await new Promise<{ status: number; type: string; text: string }>(
      (resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/console/events',
            headers: {
              Accept: 'text/event-stream',
              'Sec-Fetch-Site': 'same-origin',
              'Sec-Fetch-Mode': 'cors',
              Cookie: herald.console.cookie,
            },
          },
          (res) => {
            res.once('data', (c: Buffer) => {
              resolve({
                status: res.statusCode ?? 0,
                type: String(res.headers['content-type']),
                text: c.toString('utf8'),
              });
              req.destroy();
            });
          },
        );
        req.on('error', reject);
        req.end();
      },
    );
    expect(firstChunk.status).toBe(200);
    expect(firstChunk.type).toMatch(/text\/event-stream/);
  });

  it('scripts (no Origin, no Sec-Fetch-*) and typed URLs (Sec-Fetch-Site: none) work as before', async () => {
    // curl -d without a Content-Type header.
    const curl = await call({
      method: 'POST',
      path: '/api/v2/message/send',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify({ token: templateToken, title: 'from a script' }),
    });
    expect(curl.status).toBe(200);
    const v1 = await call({
      method: 'POST',
      path: '/api/v1/message/send',
      body: JSON.stringify({
        task_id: taskId,
        title: 'from a script v1',
        text: 'x',
        mode: 'async',
      }),
    });
    expect(v1.status).toBe(200);
    await herald.waitFor(async () => (await storedTitled('from a script')) === 1);

    const typed = await call({
      path: '/api/console/status',
      headers: { 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Mode': 'navigate' },
    });
    expect(typed.status).toBe(200);
  });

  it('pages of the console still load from a link on another site (only API routes are guarded)', async () => {
    for (const path of ['/', '/messages']) {
      const res = await call({
        path,
        headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' },
      });
      expect(res.status, path).toBe(200);
      expect(res.body).toContain('<title>Herald</title>');
    }
  });

  it('an origin in HERALD_CORS_ORIGINS gets CORS on the send APIs, and only there', async () => {
    const preflight = await call({
      method: 'OPTIONS',
      path: '/api/v2/message/send',
      headers: {
        Origin: DASHBOARD,
        'Sec-Fetch-Site': 'cross-site',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(preflight.headers['access-control-allow-methods']).toBe('POST');
    expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/Content-Type/);

    const sent = await call({
      method: 'POST',
      path: '/api/v2/message/send',
      headers: {
        Origin: DASHBOARD,
        'Sec-Fetch-Site': 'cross-site',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ token: templateToken, title: 'from the dashboard' }),
    });
    expect(sent.status).toBe(200);
    expect(sent.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(String(sent.headers.vary)).toMatch(/Origin/);
    await herald.waitFor(async () => (await storedTitled('from the dashboard')) === 1);

    const consoleCall = await call({
      method: 'POST',
      path: '/api/console/messages/read-all',
      headers: withCookie({ Origin: DASHBOARD, 'Sec-Fetch-Site': 'cross-site' }),
    });
    expect(consoleCall.status).toBe(403);
    expect(consoleCall.headers['access-control-allow-origin']).toBeUndefined();

    const otherPreflight = await call({
      method: 'OPTIONS',
      path: '/api/v2/message/send',
      headers: { Origin: ATTACKER, 'Access-Control-Request-Method': 'POST' },
    });
    expect(otherPreflight.status).toBe(403);
    expect(otherPreflight.headers['access-control-allow-origin']).toBeUndefined();
  });
});
