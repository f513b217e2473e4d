import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { User } from '../../../server/db/models';
import { ADMIN, ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

/** Users, invites, the last administrator, and each person's own password and sessions. */
describe('console users and accounts', () => {
  let herald: TestHerald;
  let clock: ManualClock;
  let n = 0;
  const unique = (what: string) => `${what}-${++n}`;

  /** A browser of the first administrator, signed in afresh (tests sign sessions out). */
  const adminBrowser = async () => {
    const admin = new ConsoleClient(herald.url);
    await admin.ok('POST', '/login', ADMIN);
    return admin;
  };
  const signIn = async (username: string, password: string) => {
    const client = new ConsoleClient(herald.url);
    return { client, res: await client.post('/login', { username, password }) };
  };

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    herald = await startTestHerald({ clock, desktopSecret: 'desktop-secret' });
  });
  afterAll(() => herald?.close(true));

  it('an admin creates accounts with a role; the role rides on the session', async () => {
    const admin = await adminBrowser();
    const username = unique('editor');
    const created = await admin.ok('POST', '/users', {
      username,
      role: 'editor',
      password: 'editor password',
    });
    expect(created).toMatchObject({ username, role: 'editor', disabled: false, invited: false });
    expect(created.inviteUrl).toBeNull();
    const { client, res } = await signIn(username, 'editor password');
    expect(res.body.data.user).toEqual({
      id: created.id,
      username,
      role: 'editor',
      twoFactor: 'off',
    });
    expect((await client.get('/me')).body.data.user.role).toBe('editor');
    const list = await admin.ok('GET', '/users');
    expect(list.items.find((u: { id: number }) => u.id === created.id)).toMatchObject({
      username,
      role: 'editor',
    });
    const taken = await admin.post('/users', { username, role: 'viewer', password: 'whatever1' });
    expect(taken.status).toBe(409);
    expect(taken.body.msg).toBe('username: is taken');
    const bad = await admin.post('/users', { username: 'x y', role: 'boss' });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/username|role/);
  });

  it('an account made without a password gets a one-time invite link for 24 hours', async () => {
    const admin = await adminBrowser();
    const username = unique('invited');
    const created = await admin.ok('POST', '/users', { username, role: 'viewer' });
    expect(created.invited).toBe(true);
    const url = new URL(created.inviteUrl);
    expect(url.pathname).toBe('/invite');
    const token = url.searchParams.get('token')!;
    const anon = new ConsoleClient(herald.url);
    expect((await anon.get(`/invite?token=${token}`)).body.data).toEqual({
      username,
      role: 'viewer',
    });
    // Nothing signs in before the password is set, not even an empty one.
    expect((await signIn(username, '')).res.status).toBe(400);
    expect((await signIn(username, 'anything at all')).res.status).toBe(401);
    const short = await anon.post('/invite', { token, password: 'short' });
    expect(short.status).toBe(400);
    const accepted = await anon.post('/invite', { token, password: 'my own password' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.user).toMatchObject({ username, role: 'viewer' });
    expect((await anon.get('/me')).body.data.user.username).toBe(username);
    const again = await new ConsoleClient(herald.url).post('/invite', {
      token,
      password: 'another one',
    });
    expect(again.status).toBe(404);
    expect((await signIn(username, 'my own password')).res.status).toBe(200);
    const reissue = await admin.post(`/users/${created.id}/invite`);
    expect(reissue.status).toBe(409);
  });

  it('an invite link stops working after 24 hours, and a new one replaces it', async () => {
    const admin = await adminBrowser();
    const created = await admin.ok('POST', '/users', { username: unique('late'), role: 'editor' });
    const oldToken = new URL(created.inviteUrl).searchParams.get('token')!;
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    const anon = new ConsoleClient(herald.url);
    expect((await anon.get(`/invite?token=${oldToken}`)).status).toBe(404);
    const fresh = await admin.ok('POST', `/users/${created.id}/invite`);
    const token = new URL(fresh.inviteUrl).searchParams.get('token')!;
    expect(token).not.toBe(oldToken);
    expect((await anon.post('/invite', { token: oldToken, password: 'a password' })).status).toBe(
      404,
    );
    expect((await anon.post('/invite', { token, password: 'a password' })).status).toBe(200);
  });

  it('the last administrator cannot be deleted, disabled or demoted', async () => {
    const admin = await adminBrowser();
    const me = (await admin.ok('GET', '/me')).user;
    // Every other enabled admin is demoted first, so "admin" is the last one.
    const others = (await admin.ok('GET', '/users')).items.filter(
      (u: { id: number; role: string; disabled: boolean }) =>
        u.id !== me.id && u.role === 'admin' && !u.disabled,
    );
    for (const other of others) await admin.ok('PATCH', `/users/${other.id}`, { disabled: true });
    for (const [method, body] of [
      ['DELETE', undefined],
      ['PATCH', { disabled: true }],
      ['PATCH', { role: 'editor' }],
    ] as const) {
      const res = await admin.request(method, `/users/${me.id}`, body);
      expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(409);
      expect(res.body.msg).toMatch(/^the last administrator cannot be/);
    }
    const second = await admin.ok('POST', '/users', {
      username: unique('admin'),
      role: 'admin',
      password: 'second admin password',
    });
    // With a second administrator, the first may step down; then the second is the last.
    await admin.ok('PATCH', `/users/${me.id}`, { role: 'editor' });
    const secondBrowser = (await signIn(second.username, 'second admin password')).client;
    expect((await secondBrowser.del(`/users/${second.id}`)).status).toBe(409);
    await secondBrowser.ok('PATCH', `/users/${me.id}`, { role: 'admin' });
    await secondBrowser.ok('DELETE', `/users/${second.id}`);
    expect((await secondBrowser.get('/me')).status).toBe(401);
  });

  it('issue 44 §3.4: a pending invite does not count as another administrator', async () => {
    const admin = await adminBrowser();
    const me = (await admin.ok('GET', '/me')).user;
    const others = (await admin.ok('GET', '/users')).items.filter(
      (u: { id: number; role: string; disabled: boolean }) =>
        u.id !== me.id && u.role === 'admin' && !u.disabled,
    );
    for (const other of others) await admin.ok('PATCH', `/users/${other.id}`, { disabled: true });
    // Invited, never accepted: no one can sign in as it, so it administers nothing.
    const pending = await admin.ok('POST', '/users', {
      username: unique('pending'),
      role: 'admin',
    });
    expect(pending.invited).toBe(true);
    try {
      for (const [method, body] of [
        ['PATCH', { role: 'editor' }],
        ['PATCH', { disabled: true }],
        ['DELETE', undefined],
      ] as const) {
        const res = await admin.request(method, `/users/${me.id}`, body);
        expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(409);
        expect(res.body.msg).toMatch(/^the last administrator cannot be/);
      }
      expect((await admin.ok('GET', '/me')).user.role).toBe('admin');
      // Bound to an OpenID Connect identity (as a sign-in through the provider binds an invite),
      // it can sign in: now it counts, and the first administrator may step down.
      await User.update(
        { ssoIssuer: 'https://id.example.test', ssoSubject: `sub-${pending.id}` },
        { where: { id: pending.id } },
      );
      await admin.ok('PATCH', `/users/${me.id}`, { role: 'editor' });
      await User.update({ role: 'admin' }, { where: { id: me.id } });
    } finally {
      await admin.del(`/users/${pending.id}`);
    }
  });

  it('disabling an account ends its sessions and refuses its sign-in', async () => {
    const admin = await adminBrowser();
    const username = unique('leaver');
    const user = await admin.ok('POST', '/users', {
      username,
      role: 'editor',
      password: 'leaver password',
    });
    const { client } = await signIn(username, 'leaver password');
    expect((await client.get('/channels')).status).toBe(200);
    await admin.ok('PATCH', `/users/${user.id}`, { disabled: true });
    expect((await client.get('/channels')).status).toBe(401);
    const refused = await signIn(username, 'leaver password');
    expect(refused.res.status).toBe(403);
    expect(refused.res.body.msg).toBe('this account is disabled; ask an administrator');
    // A wrong password says nothing about the account being disabled.
    expect((await signIn(username, 'wrong password')).res.status).toBe(401);
    await admin.ok('PATCH', `/users/${user.id}`, { disabled: false });
    expect((await signIn(username, 'leaver password')).res.status).toBe(200);
  });

  it('a role change takes effect on the next request of an open session', async () => {
    const admin = await adminBrowser();
    const username = unique('promoted');
    const user = await admin.ok('POST', '/users', {
      username,
      role: 'viewer',
      password: 'promoted password',
    });
    const { client } = await signIn(username, 'promoted password');
    expect((await client.get('/channels')).status).toBe(403);
    await admin.ok('PATCH', `/users/${user.id}`, { role: 'editor' });
    expect((await client.get('/channels')).status).toBe(200);
  });

  it('a password set by an admin signs the account out everywhere', async () => {
    const admin = await adminBrowser();
    const username = unique('reset');
    const user = await admin.ok('POST', '/users', {
      username,
      role: 'viewer',
      password: 'first password',
    });
    const { client } = await signIn(username, 'first password');
    await admin.ok('PATCH', `/users/${user.id}`, { password: 'second password' });
    expect((await client.get('/me')).status).toBe(401);
    expect((await signIn(username, 'first password')).res.status).toBe(401);
    expect((await signIn(username, 'second password')).res.status).toBe(200);
  });

  it('a person changes their own password and manages their own sessions', async () => {
    const admin = await adminBrowser();
    const username = unique('self');
    const user = await admin.ok('POST', '/users', {
      username,
      role: 'viewer',
      password: 'self password 1',
    });
    const laptop = (await signIn(username, 'self password 1')).client;
    const phone = (await signIn(username, 'self password 1')).client;
    const tablet = (await signIn(username, 'self password 1')).client;
    const sessions = (await laptop.ok('GET', '/account/sessions')).items;
    expect(sessions).toHaveLength(3);
    expect(sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ ip: '127.0.0.1', userAgent: expect.any(String) });
    // One session ends: the phone's, found as the one the phone calls current.
    const phoneId = (await phone.ok('GET', '/account/sessions')).items.find(
      (s: { current: boolean }) => s.current,
    ).id;
    expect(await laptop.ok('DELETE', `/account/sessions/${phoneId}`)).toEqual({ revoked: 1 });
    expect((await phone.get('/me')).status).toBe(401);
    // Someone else's session id revokes nothing.
    const adminId = (await admin.ok('GET', '/account/sessions')).items[0].id;
    expect(await laptop.ok('DELETE', `/account/sessions/${adminId}`)).toEqual({ revoked: 0 });
    expect((await admin.get('/me')).status).toBe(200);

    const wrong = await laptop.post('/account/password', {
      current: 'nope',
      new: 'self password 2',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.msg).toBe('current: is not correct');
    await laptop.ok('POST', '/account/password', {
      current: 'self password 1',
      new: 'self password 2',
    });
    expect((await tablet.get('/me')).status).toBe(401);
    expect((await laptop.get('/me')).status).toBe(200);

    const desk = (await signIn(username, 'self password 2')).client;
    expect(await laptop.ok('DELETE', '/account/sessions')).toEqual({ revoked: 1 });
    expect((await desk.get('/me')).status).toBe(401);
    expect((await laptop.get('/me')).status).toBe(200);

    // An administrator sees and ends anyone's sessions.
    expect((await admin.ok('GET', `/users/${user.id}/sessions`)).items).toHaveLength(1);
    expect(await admin.ok('DELETE', `/users/${user.id}/sessions`)).toEqual({ revoked: 1 });
    expect((await laptop.get('/me')).status).toBe(401);
  });

  it('deleting an account ends its sessions; the desktop window signs in as an enabled admin', async () => {
    const admin = await adminBrowser();
    const username = unique('gone');
    const user = await admin.ok('POST', '/users', {
      username,
      role: 'editor',
      password: 'gone password',
    });
    const { client } = await signIn(username, 'gone password');
    await admin.ok('DELETE', `/users/${user.id}`);
    expect((await client.get('/me')).status).toBe(401);
    expect((await admin.del(`/users/${user.id}`)).status).toBe(404);
    const login = await fetch(`${herald.url}/api/console/desktop-login?secret=desktop-secret`, {
      redirect: 'manual',
    });
    expect(login.status).toBe(302);
    const desktop = new ConsoleClient(herald.url);
    desktop.cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    expect((await desktop.ok('GET', '/me')).user).toMatchObject({ id: 1, role: 'admin' });
  });

  it('account changes are audited, the password only as changed', async () => {
    const admin = await adminBrowser();
    const username = unique('audited');
    const user = await admin.ok('POST', '/users', {
      username,
      role: 'viewer',
      password: 'audited password',
    });
    await admin.ok('PATCH', `/users/${user.id}`, { role: 'editor', password: 'another password' });
    await admin.ok('DELETE', `/users/${user.id}`);
    const entries = (await admin.ok('GET', `/audit?q=${username}&pageSize=10`)).items;
    const byAction = (action: string) =>
      entries.find((e: { action: string }) => e.action === action);
    expect(byAction('user.create')).toMatchObject({
      targetType: 'user',
      targetId: String(user.id),
      targetName: username,
      username: 'admin',
    });
    expect(byAction('user.create').changes).toContainEqual({ field: 'password', changed: true });
    expect(byAction('user.update').changes).toEqual(
      expect.arrayContaining([
        { field: 'role', before: 'viewer', after: 'editor' },
        { field: 'password', changed: true },
      ]),
    );
    expect(byAction('user.delete')).toBeTruthy();
    expect(JSON.stringify(entries)).not.toContain('audited password');
    expect(JSON.stringify(entries)).not.toContain('$argon2');
  });
});
