import { request } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { User } from '../../../server/db/models';
import { ADMIN, ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { keepLogLines } from '../../helpers/log-lines';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/**
 * Issue 44 §2: a trusted reverse proxy's header signs people into the console and the reader,
 * over real HTTP against a real Herald (SQLite, and PostgreSQL on the second pass). The proxy
 * is 127.0.0.1 (HERALD_TRUST_PROXY); a client on 127.0.0.2 (another loopback address, which
 * Linux answers on) is anyone else, connecting to the same listener.
 */

const PROXY = '127.0.0.1';
const OUTSIDER = '127.0.0.2';
const LOGOUT_URL = 'https://auth.example.com/logout';

interface Answer {
  status: number;
  body: any;
  /** The session cookie the answer set, if it set one. */
  cookie: string | null;
}

interface Call {
  from?: string;
  method?: string;
  /** Remote-User's value; unset sends none. */
  user?: string;
  groups?: string;
  cookie?: string;
  body?: unknown;
}

/** One request over a connection from `from`, with the proxy's headers as asked. */
function call(herald: TestHerald, path: string, c: Call = {}): Promise<Answer> {
  const url = new URL(path, herald.url);
  const payload = c.body === undefined ? undefined : JSON.stringify(c.body);
  const headers: Record<string, string> = {};
  if (c.user !== undefined) headers['Remote-User'] = c.user;
  if (c.groups !== undefined) headers['Remote-Groups'] = c.groups;
  if (c.cookie) headers.Cookie = c.cookie;
  if (payload !== undefined) headers['Content-Type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: c.method ?? 'GET', localAddress: c.from ?? PROXY, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const set = res.headers['set-cookie']?.find((line) => line.startsWith('herald_session='));
          const pair = set?.split(';')[0] ?? null;
          resolve({
            status: res.statusCode ?? 0,
            body: text ? JSON.parse(text) : undefined,
            cookie: pair && !pair.endsWith('=') ? pair : null,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Opens the console's event stream through the proxy; resolves once it answered. */
function openStream(
  herald: TestHerald,
  c: Call,
): Promise<{ status: number; type: string; ended: Promise<void>; close(): void }> {
  const headers: Record<string, string> = {};
  if (c.user !== undefined) headers['Remote-User'] = c.user;
  if (c.groups !== undefined) headers['Remote-Groups'] = c.groups;
  if (c.cookie) headers.Cookie = c.cookie;
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/api/console/events', herald.url),
      { localAddress: c.from ?? PROXY, headers },
      (res) => {
        const ended = new Promise<void>((done) => res.on('end', done).on('close', done));
        res.resume();
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          ended,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const PROXY_ENV = {
  HERALD_AUTH_PROXY_HEADER: 'Remote-User',
  HERALD_AUTH_PROXY_GROUPS_HEADER: 'Remote-Groups',
  HERALD_AUTH_PROXY_LOGOUT_URL: LOGOUT_URL,
  HERALD_OIDC_ADMIN_GROUPS: 'herald-admins',
  HERALD_OIDC_EDITOR_GROUPS: 'herald-editors, ops',
};

/** Starts a Herald behind a proxy at 127.0.0.1 that reads these HERALD_* variables. */
function startBehindProxy(env: Record<string, string>, setup = true): Promise<TestHerald> {
  return startTestHerald({ trustProxy: PROXY, setup, env });
}

describe('signing in from a trusted reverse proxy header', () => {
  let herald: TestHerald;

  beforeAll(async () => {
    herald = await startBehindProxy(PROXY_ENV);
  });
  afterAll(async () => {
    await herald.close(true);
  });

  it('signs a new person in from the proxy: an account with the groups’ role, a real session, the sign-in audited', async () => {
    const first = await call(herald, '/api/console/status', {
      user: 'alice',
      groups: 'staff,herald-editors',
    });
    expect(first.status).toBe(200);
    expect(first.body.data.user).toMatchObject({ username: 'alice', role: 'editor' });
    expect(first.cookie).toMatch(/^herald_session=/);
    const account = await User.findOne({ where: { username: 'alice' } });
    expect(account?.role).toBe('editor');
    expect(account?.passwordHash).toBe('');

    // The cookie's session is reused while the header names the same person.
    const again = await call(herald, '/api/console/me', {
      user: 'alice',
      groups: 'staff,herald-editors',
      cookie: first.cookie!,
    });
    expect(again.body.data.user.username).toBe('alice');
    expect(again.cookie).toBeNull();
    const sessions = await call(herald, '/api/console/account/sessions', {
      user: 'alice',
      cookie: first.cookie!,
    });
    expect(sessions.status).toBe(200);
    expect(sessions.body.data.items ?? sessions.body.data).toHaveLength(1);

    const audit = await herald.console.ok('GET', '/audit?user=alice');
    const actions = audit.items.map((entry: any) => entry.action);
    expect(actions).toContain('auth.sign-in');
    expect(actions).toContain('user.create');
    const signIn = audit.items.find((entry: any) => entry.action === 'auth.sign-in');
    expect(signIn.changes).toContainEqual({ field: 'provider', before: null, after: 'proxy' });
  });

  it('the groups set the role at every request: admin, then editor again; unmapped groups leave it', async () => {
    const signed = await call(herald, '/api/console/me', { user: 'bert', groups: 'ops' });
    expect(signed.body.data.user.role).toBe('editor');
    const cookie = signed.cookie!;
    // Authentik's pipe-separated groups.
    const promoted = await call(herald, '/api/console/me', {
      user: 'bert',
      groups: 'staff|herald-admins',
      cookie,
    });
    expect(promoted.body.data.user.role).toBe('admin');
    expect((await User.findOne({ where: { username: 'bert' } }))?.role).toBe('admin');
    // An administrator's page now answers.
    expect((await call(herald, '/api/console/users', { user: 'bert', cookie })).status).toBe(200);
    const unmapped = await call(herald, '/api/console/me', {
      user: 'bert',
      groups: 'staff',
      cookie,
    });
    expect(unmapped.body.data.user.role).toBe('admin');
    const demoted = await call(herald, '/api/console/users', {
      user: 'bert',
      groups: 'herald-editors',
      cookie,
    });
    expect(demoted.status).toBe(403);
    expect((await User.findOne({ where: { username: 'bert' } }))?.role).toBe('editor');
  });

  it('a live event stream opens for the person the proxy names, and ends when the groups change their role', async () => {
    const signed = await call(herald, '/api/console/me', { user: 'hana', groups: 'ops' });
    const stream = await openStream(herald, {
      user: 'hana',
      groups: 'ops',
      cookie: signed.cookie!,
    });
    try {
      expect(stream.status).toBe(200);
      expect(stream.type).toMatch(/^text\/event-stream/);
      const promoted = await call(herald, '/api/console/me', {
        user: 'hana',
        groups: 'herald-admins',
        cookie: signed.cookie!,
      });
      expect(promoted.body.data.user.role).toBe('admin');
      // Opened as an editor: it ends, and the console reconnects as the administrator.
      await stream.ended;
    } finally {
      stream.close();
    }
  });

  it('a name in UTF-8 (as proxies send it) is read as UTF-8', async () => {
    const utf8 = Buffer.from('josé', 'utf8').toString('latin1');
    const jose = await call(herald, '/api/console/me', { user: utf8 });
    expect(jose.body.data.user.username).toBe('josé');
  });

  it('a header naming someone else switches the browser to them and ends the old session', async () => {
    const carl = await call(herald, '/api/console/me', { user: 'carl' });
    const dana = await call(herald, '/api/console/me', { user: 'dana', cookie: carl.cookie! });
    expect(dana.body.data.user.username).toBe('dana');
    expect(dana.cookie).not.toBe(carl.cookie);
    // Carl's session is gone: his cookie alone (no header) signs no one in.
    const old = await call(herald, '/api/console/me', { cookie: carl.cookie! });
    expect(old.status).toBe(401);
  });

  it('an existing account signs in without its password; a disabled one is refused', async () => {
    const { id } = await herald.console.ok('POST', '/users', {
      username: 'erin',
      role: 'viewer',
      password: 'erins password 1',
    });
    const erin = await call(herald, '/api/console/me', { user: 'erin' });
    expect(erin.body.data.user).toMatchObject({ id, username: 'erin', role: 'viewer' });
    await herald.console.ok('PATCH', `/users/${id}`, { disabled: true });
    const refused = await call(herald, '/api/console/me', { user: 'erin' });
    expect(refused.status).toBe(403);
    expect(refused.body.msg).toBe('this account is disabled; ask an administrator');
  });

  it('refuses usernames over 64 characters or with control characters, and makes no account', async () => {
    const ok = await call(herald, '/api/console/me', { user: 'x'.repeat(64) });
    expect(ok.status).toBe(200);
    const long = await call(herald, '/api/console/me', { user: 'y'.repeat(65) });
    expect(long.status).toBe(403);
    expect(long.body.msg).toMatch(/^Remote-User: the proxy's username is longer than 64/);
    const tab = await call(herald, '/api/console/status', { user: 'eve\tadmin' });
    expect(tab.status).toBe(403);
    expect(tab.body.msg).toMatch(/spaces or control characters/);
    expect(await User.count({ where: { username: 'y'.repeat(65) } })).toBe(0);
  });

  it('from an address that is not a trusted proxy the header is ignored, and logged once per address', async () => {
    const log = keepLogLines('warn');
    try {
      for (let i = 0; i < 3; i++) {
        const me = await call(herald, '/api/console/me', { from: OUTSIDER, user: 'admin' });
        expect(me.status).toBe(401);
        expect(me.cookie).toBeNull();
      }
      const status = await call(herald, '/api/console/status', { from: OUTSIDER, user: 'mallory' });
      expect(status.body.data.user).toBeNull();
      expect(await User.count({ where: { username: 'mallory' } })).toBe(0);
      const lines = log.lines.filter((line) => line.includes('Remote-User ignored from'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(OUTSIDER);
    } finally {
      log.restore();
    }
    // The cookie still decides there: the admin's own session, whatever the header says.
    const admin = await call(herald, '/api/console/me', {
      from: OUTSIDER,
      user: 'mallory',
      cookie: herald.console.cookie,
    });
    expect(admin.body.data.user.username).toBe('admin');
  });

  it('the header never authenticates the send APIs or the hooks: they keep their tokens', async () => {
    const { template } = await herald.createTemplate({ name: 'proxy-send' }, []);
    for (const [path, body, status] of [
      ['/api/v1/message/send', { title: 'forged', text: 'x' }, 400],
      ['/api/v2/message/send', { title: 'forged', templateId: template.id }, 400],
      ['/api/hooks/generic', { title: 'forged' }, 401],
    ] as const) {
      const sent = await call(herald, path, {
        method: 'POST',
        user: 'admin',
        groups: 'herald-admins',
        body,
      });
      expect(sent.status, path).toBe(status);
      expect(sent.body.msg, path).toMatch(/^token: is required/);
      expect(sent.cookie, path).toBeNull();
    }
    const { total } = await herald.console.ok('GET', '/logs');
    expect(total).toBe(0);
  });

  it('the sign-in page learns the proxy’s logout URL, and Settings → Sign-in shows the header settings', async () => {
    const methods = await new ConsoleClient(herald.url).ok('GET', '/sign-in/methods');
    expect(methods.proxyLogoutUrl).toBe(LOGOUT_URL);
    const settings = await herald.console.ok('GET', '/settings/sign-in');
    expect(settings.proxy).toEqual({
      header: 'Remote-User',
      groupsHeader: 'Remote-Groups',
      logoutUrl: LOGOUT_URL,
      autoCreate: true,
    });
  });

  it('sign-out from behind the proxy answers the proxy’s logout URL; a password session gets null', async () => {
    const fay = await call(herald, '/api/console/me', { user: 'fay' });
    const out = await call(herald, '/api/console/logout', {
      method: 'POST',
      user: 'fay',
      cookie: fay.cookie!,
    });
    expect(out.status).toBe(200);
    expect(out.body.data).toEqual({ redirectTo: LOGOUT_URL });
    const { client } = await herald.signedInAs('viewer', 'gus');
    const plain = await client.post('/logout');
    expect(plain.body.data).toEqual({ redirectTo: null });
  });
});

describe('with HERALD_AUTH_PROXY_AUTO_CREATE=0', () => {
  let herald: TestHerald;

  beforeAll(async () => {
    herald = await startBehindProxy({ ...PROXY_ENV, HERALD_AUTH_PROXY_AUTO_CREATE: '0' });
  });
  afterAll(async () => {
    await herald.close(true);
  });

  it('only accounts that exist sign in; anyone else is refused with a clear message', async () => {
    const stranger = await call(herald, '/api/console/status', { user: 'stranger' });
    expect(stranger.status).toBe(403);
    expect(stranger.body.msg).toMatch(/^Herald has no account named "stranger"/);
    expect(stranger.body.msg).toContain('HERALD_AUTH_PROXY_AUTO_CREATE');
    expect(await User.count({ where: { username: 'stranger' } })).toBe(0);
    const admin = await call(herald, '/api/console/me', { user: 'admin' });
    expect(admin.body.data.user).toMatchObject({ username: 'admin', role: 'admin' });
  });

  it('requireTwoFactor holds password sessions, not the ones the proxy signs in (its second factor is the proxy’s job)', async () => {
    await herald.console.ok('PUT', '/settings', { requireTwoFactor: true });
    // The administrator's password session must now set up a second factor first.
    expect((await herald.console.get('/channels')).status).toBe(403);
    const proxied = await call(herald, '/api/console/channels', { user: 'admin' });
    expect(proxied.status).toBe(200);
    const me = await call(herald, '/api/console/me', { user: 'admin', cookie: proxied.cookie! });
    expect(me.body.data.user.twoFactor).toBe('off');
    // The session is marked as the proxy's: its cookie alone is not held to it either.
    const cookieOnly = await call(herald, '/api/console/channels', {
      from: OUTSIDER,
      cookie: proxied.cookie!,
    });
    expect(cookieOnly.status).toBe(200);
  });
});

describe('before the first administrator exists', () => {
  let herald: TestHerald;

  beforeAll(async () => {
    herald = await startBehindProxy(PROXY_ENV, false);
  });
  afterAll(async () => {
    await herald.close(true);
  });

  it('the header signs no one in, so the setup page makes the administrator; then it does', async () => {
    const early = await call(herald, '/api/console/status', { user: 'early', groups: 'ops' });
    expect(early.body.data).toMatchObject({ setupRequired: true, user: null });
    expect(early.cookie).toBeNull();
    expect(await User.count()).toBe(0);
    const page = new ConsoleClient(herald.url);
    await page.ok('POST', '/setup', { ...ADMIN, setupCode: herald.server.setupCode() });
    const admin = await call(herald, '/api/console/status', { user: ADMIN.username });
    expect(admin.body.data.user).toMatchObject({ username: 'admin', role: 'admin' });
  });
});

describe('starting with the header but no trusted proxy', () => {
  it('is refused, saying why and naming both variables', async () => {
    await expect(
      startTestHerald({ setup: false, env: { HERALD_AUTH_PROXY_HEADER: 'Remote-User' } }),
    ).rejects.toThrow(
      /^HERALD_AUTH_PROXY_HEADER is set but HERALD_TRUST_PROXY is not: anyone who reaches Herald could send the header/,
    );
  });
});
