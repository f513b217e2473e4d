import { connect } from 'node:net';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { User } from '../../../server/db/models';
import { ADMIN, ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

describe('console sign-in', () => {
  // Each test gets its own Herald: setup, the one-time desktop secret, the sign-in throttle and
  // the password are all state that one test would otherwise leave for the next.
  let running: TestHerald | undefined;
  let clock: ManualClock;

  const start = async (setup: boolean) => {
    clock = new ManualClock();
    running = await startTestHerald({ setup, desktopSecret: 'one-time-secret', clock });
    return running;
  };
  afterEach(async () => {
    vi.unstubAllEnvs();
    await running?.close(true);
    running = undefined;
  });

  it('GET /status reports that setup is needed until the first admin exists', async () => {
    const herald = await start(false);
    const anon = new ConsoleClient(herald.url);
    expect((await anon.get('/status')).body.data.setupRequired).toBe(true);
    const setupCode = herald.server.setupCode();
    const weak = await anon.post('/setup', { username: 'admin', password: 'short', setupCode });
    expect(weak.status).toBe(400);
    expect(weak.body.msg).toMatch(/^password: must be at least 8/);
    const setup = await anon.post('/setup', { ...ADMIN, setupCode });
    expect(setup.status).toBe(200);
    const cookie = setup.headers.get('set-cookie')!;
    expect(cookie).toMatch(/herald_session=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect((await anon.get('/me')).body.data.user.username).toBe('admin');
    expect(herald.server.setupCode()).toBeNull();
    const status = (await anon.get('/status')).body.data;
    expect(status.setupRequired).toBe(false);
    expect(status.user).toEqual({ id: 1, username: 'admin', role: 'admin', twoFactor: 'off' });
    expect((await new ConsoleClient(herald.url).get('/status')).body.data.user).toBeNull();
    const again = await new ConsoleClient(herald.url).post('/setup', {
      username: 'evil',
      password: 'password123',
      setupCode,
    });
    expect(again.status).toBe(409);
  });

  it('every console route answers 401 without a session', async () => {
    const herald = await start(true);
    const anon = new ConsoleClient(herald.url);
    for (const [method, path] of [
      ['GET', '/me'],
      ['GET', '/channels'],
      ['POST', '/channels'],
      ['GET', '/tasks'],
      ['GET', '/templates'],
      ['GET', '/logs'],
      ['GET', '/messages'],
      ['GET', '/settings'],
      ['GET', '/stats'],
      ['GET', '/events'],
      ['DELETE', '/tasks/1'],
    ]) {
      const res = await anon.request(
        method,
        path,
        method === 'GET' || method === 'DELETE' ? undefined : {},
      );
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body).toEqual({ code: 401, msg: 'not signed in', data: null });
    }
  });

  it('POST /login throttles repeated failures per IP and user', async () => {
    const herald = await start(true);
    const anon = new ConsoleClient(herald.url);
    for (let i = 0; i < 5; i++) {
      const res = await anon.post('/login', { username: 'admin', password: `wrong-${i}` });
      expect(res.status).toBe(401);
      expect(res.body.msg).toBe('wrong username or password');
    }
    const blocked = await anon.post('/login', ADMIN);
    expect(blocked.status).toBe(429);
    expect(blocked.body.msg).toMatch(/^too many failed sign-ins; try again in \d+ seconds?$/);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    clock.advance(retryAfter * 1000);
    expect((await anon.post('/login', ADMIN)).status).toBe(200);
  });

  it('console mutations accept only application/json', async () => {
    const herald = await start(false);
    const res = await fetch(`${herald.url}/api/console/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'username=admin&password=x',
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { msg: string }).msg).toMatch(/application\/json/);
  });

  it('an empty body declared as application/json is an empty object, not a 415', async () => {
    const herald = await start(true);
    const client = new ConsoleClient(herald.url);
    await client.ok('POST', '/login', ADMIN);
    const { id } = await client.ok('POST', '/tasks', { name: 'empty body' });
    // What `curl -X POST -H 'Content-Type: application/json' URL` sends: no body at all.
    for (const [path, type] of [
      ['/maintenance/prune', 'application/json'],
      [`/tasks/${id}/token/rotate`, 'application/json; charset=utf-8'],
      ['/maintenance/prune', 'Application/JSON'],
    ] as const) {
      const answer = await headersOnlyPost(herald.url, `/api/console${path}`, [
        `Content-Type: ${type}`,
        `Cookie: ${client.cookie}`,
      ]);
      expect(answer, `${path} ${type}`).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toContain('"code":200');
    }
    // A body that is not JSON is still refused, whatever its length.
    const form = await fetch(`${herald.url}/api/console/maintenance/prune`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', Cookie: client.cookie },
    });
    expect(form.status).toBe(415);
  });

  it('GET /desktop-login signs the window in once with the one-time secret', async () => {
    const herald = await start(true);
    const wrong = await fetch(`${herald.url}/api/console/desktop-login?secret=nope`, {
      redirect: 'manual',
    });
    expect(wrong.status).toBe(401);
    const first = await fetch(`${herald.url}/api/console/desktop-login?secret=one-time-secret`, {
      redirect: 'manual',
    });
    expect(first.status).toBe(302);
    const cookie = first.headers.get('set-cookie')!.split(';')[0];
    const me = await fetch(`${herald.url}/api/console/me`, { headers: { Cookie: cookie } });
    expect(((await me.json()) as { data: { user: { username: string } } }).data.user.username).toBe(
      'admin',
    );
    const second = await fetch(`${herald.url}/api/console/desktop-login?secret=one-time-secret`, {
      redirect: 'manual',
    });
    expect(second.status).toBe(401);
  });

  it('POST /password changes the password and signs out other sessions', async () => {
    const herald = await start(true);
    const a = new ConsoleClient(herald.url);
    // Two sessions of the same user, opened through the desktop sign-in.
    herald.server.ctx.desktopSecret.value = 'second-secret';
    const r = await fetch(`${herald.url}/api/console/desktop-login?secret=second-secret`, {
      redirect: 'manual',
    });
    a.cookie = r.headers.get('set-cookie')!.split(';')[0];
    herald.server.ctx.desktopSecret.value = 'third-secret';
    const r2 = await fetch(`${herald.url}/api/console/desktop-login?secret=third-secret`, {
      redirect: 'manual',
    });
    const b = new ConsoleClient(herald.url);
    b.cookie = r2.headers.get('set-cookie')!.split(';')[0];
    const wrong = await a.post('/password', {
      currentPassword: 'nope',
      newPassword: 'new password 1',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.msg).toMatch(/^currentPassword/);
    await a.ok('POST', '/password', {
      currentPassword: ADMIN.password,
      newPassword: 'new password 1',
    });
    expect((await a.get('/me')).status).toBe(200);
    expect((await b.get('/me')).status).toBe(401);
    await a.ok('POST', '/logout');
    expect((await a.get('/me')).status).toBe(401);
  });

  it("a password stored below an account's cost is stored at that cost at its next sign-in", async () => {
    // The suite's Heralds hash at the test cost (vitest.config.ts); this one then runs without.
    const herald = await start(true);
    const stored = async () => (await User.findOne({ where: { username: ADMIN.username } }))!;
    const cheap = (await stored()).passwordHash;
    expect(cheap).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    vi.stubEnv('HERALD_TEST_CHEAP_PASSWORD_HASH', '');
    const wrong = await new ConsoleClient(herald.url).post('/login', {
      username: ADMIN.username,
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    expect((await stored()).passwordHash).toBe(cheap);
    await new ConsoleClient(herald.url).ok('POST', '/login', ADMIN);
    const full = (await stored()).passwordHash;
    expect(full).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=4\$/);
    await new ConsoleClient(herald.url).ok('POST', '/login', ADMIN);
    expect((await stored()).passwordHash).toBe(full);
  });
});

/**
 * A POST as `curl -X POST -H …` sends it: headers and no body, with neither Content-Length nor
 * Transfer-Encoding (fetch and node:http both add one). The whole answer, as text.
 */
function headersOnlyPost(baseUrl: string, path: string, headers: string[]): Promise<string> {
  const { hostname, port, host } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(
        [`POST ${path} HTTP/1.1`, `Host: ${host}`, ...headers, 'Connection: close', '', ''].join(
          '\r\n',
        ),
      );
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}
