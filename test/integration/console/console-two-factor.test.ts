import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { consoleRoutes, routesOf, type RouteSpec } from '../../../contract';
import {
  BEFORE_TWO_FACTOR,
  TWO_FACTOR_FIRST,
  accessOf,
} from '../../../server/api/console/route-access';
import { Session } from '../../../server/db/models';
import { sessionKey } from '../../../server/features/auth/auth-service';
import { openEventStream } from '../../helpers/event-stream';
import { ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';
import { authenticatorCode } from '../../helpers/totp-code';

const STEP = 30_000;
const label = (spec: RouteSpec) => `${spec.method.toUpperCase()} ${spec.path}`;

/** A teammate's account, made by the admin, and a browser signed in as it. */
async function teammate(herald: TestHerald, role: 'admin' | 'editor' | 'viewer' = 'editor') {
  const { client, user, password } = await herald.signedInAs(role);
  return { client, user, password, username: user.username as string };
}

/** Sets up two-factor for a signed-in browser; answers the secret and the recovery codes. */
async function enrol(client: ConsoleClient, clock: ManualClock) {
  const { secret, otpauthUrl } = await client.ok('POST', '/account/two-factor/setup');
  const { recoveryCodes } = await client.ok('POST', '/account/two-factor/enable', {
    code: authenticatorCode(secret, clock.now()),
  });
  return { secret: secret as string, otpauthUrl: otpauthUrl as string, recoveryCodes };
}

const signIn = async (herald: TestHerald, username: string, password: string, code?: string) => {
  const client = new ConsoleClient(herald.url);
  const res = await client.post('/login', { username, password, ...(code ? { code } : {}) });
  return { client, res };
};

describe('two-factor sign-in', () => {
  let herald: TestHerald;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    herald = await startTestHerald({ clock });
  });
  afterAll(() => herald?.close(true));

  it('enrols with a code from the secret, then signs in only with a code', async () => {
    const { client, username, password } = await teammate(herald);
    expect(await client.ok('GET', '/account/two-factor')).toEqual({
      enabled: false,
      required: false,
      recoveryCodesLeft: 0,
      pending: false,
    });
    const { secret, otpauthUrl } = await client.ok('POST', '/account/two-factor/setup');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(otpauthUrl);
    expect(url.protocol).toBe('otpauth:');
    expect(decodeURIComponent(url.pathname)).toBe(`/Herald:${username}`);
    expect(url.searchParams.get('secret')).toBe(secret);
    expect((await client.ok('GET', '/account/two-factor')).pending).toBe(true);
    // Not on until a code confirms it: the password alone still signs in.
    expect((await signIn(herald, username, password)).res.status).toBe(200);

    const wrong = await client.post('/account/two-factor/enable', { code: '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.msg).toMatch(/^code: is not correct/);
    const { recoveryCodes } = await client.ok('POST', '/account/two-factor/enable', {
      code: authenticatorCode(secret, clock.now()),
    });
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    expect(await client.ok('GET', '/account/two-factor')).toMatchObject({
      enabled: true,
      recoveryCodesLeft: 10,
      pending: false,
    });
    expect((await client.ok('GET', '/me')).user.twoFactor).toBe('on');
    expect((await client.post('/account/two-factor/setup')).status).toBe(409);

    const noCode = await signIn(herald, username, password);
    expect(noCode.res.status).toBe(401);
    expect(noCode.res.body.msg).toMatch(/^code: is required/);
    expect(noCode.res.body.data).toEqual({ twoFactorRequired: true });
    expect(noCode.client.cookie).toBe('');
    // A wrong password says only that, not that a code would be asked for.
    const wrongPassword = await signIn(herald, username, 'not the password', '123456');
    expect(wrongPassword.res.status).toBe(401);
    expect(wrongPassword.res.body).toMatchObject({ msg: 'wrong username or password', data: null });

    // The step the enrolment used is spent: the next one signs in, once.
    clock.advance(STEP);
    const code = authenticatorCode(secret, clock.now());
    const ok = await signIn(herald, username, password, code);
    expect(ok.res.status).toBe(200);
    expect(ok.res.body.data.user).toMatchObject({ username, twoFactor: 'on' });
    expect((await ok.client.get('/me')).status).toBe(200);
    const replay = await signIn(herald, username, password, code);
    expect(replay.res.status).toBe(401);
    expect(replay.res.body.msg).toMatch(/^code: is not correct/);
    expect(replay.res.body.data).toEqual({ twoFactorRequired: true });
    // The step before is older than the one used: refused too, though within the window.
    expect(
      (await signIn(herald, username, password, authenticatorCode(secret, clock.now() - STEP))).res
        .status,
    ).toBe(401);
    clock.advance(STEP);
    expect(
      (await signIn(herald, username, password, authenticatorCode(secret, clock.now()))).res.status,
    ).toBe(200);
  });

  it('a recovery code signs in once; a new set replaces the old one', async () => {
    const { client, username, password } = await teammate(herald);
    const { secret, recoveryCodes } = await enrol(client, clock);
    const [first, second] = recoveryCodes as string[];
    // Typed loosely: upper case, spaces for dashes.
    const typed = first!.toUpperCase().replace(/-/g, ' ');
    expect((await signIn(herald, username, password, typed)).res.status).toBe(200);
    expect((await signIn(herald, username, password, first)).res.status).toBe(401);
    expect((await client.ok('GET', '/account/two-factor')).recoveryCodesLeft).toBe(9);

    const wrong = await client.post('/account/two-factor/recovery-codes', { code: '111111' });
    expect(wrong.status).toBe(400);
    clock.advance(STEP);
    const fresh = await client.ok('POST', '/account/two-factor/recovery-codes', {
      code: authenticatorCode(secret, clock.now()),
    });
    expect(fresh.recoveryCodes).toHaveLength(10);
    expect(fresh.recoveryCodes).not.toContain(second);
    expect((await signIn(herald, username, password, second)).res.status).toBe(401);
    expect((await signIn(herald, username, password, fresh.recoveryCodes[0])).res.status).toBe(200);
    expect((await client.ok('GET', '/account/two-factor')).recoveryCodesLeft).toBe(9);
  });

  it('wrong codes count as failed sign-ins in the per-account throttle', async () => {
    const { client, username, password } = await teammate(herald);
    const { secret } = await enrol(client, clock);
    clock.advance(STEP);
    // Five failures are free (asking without a code counts until the right one comes).
    expect((await signIn(herald, username, password)).res.status).toBe(401);
    for (let i = 0; i < 4; i++) {
      const res = (await signIn(herald, username, password, '000000')).res;
      expect(res.status).toBe(401);
    }
    const held = await signIn(herald, username, password, authenticatorCode(secret, clock.now()));
    expect(held.res.status).toBe(429);
    expect(held.res.body.msg).toMatch(/^too many failed sign-ins; try again in/);
    clock.advance(2_000);
    expect(
      (await signIn(herald, username, password, authenticatorCode(secret, clock.now()))).res.status,
    ).toBe(200);
  });

  it('turning it off takes the password, and then the password alone signs in', async () => {
    const { client, username, password } = await teammate(herald);
    await enrol(client, clock);
    const wrong = await client.post('/account/two-factor/disable', { password: 'not it' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.msg).toBe('password: is not correct');
    await client.ok('POST', '/account/two-factor/disable', { password });
    expect(await client.ok('GET', '/account/two-factor')).toMatchObject({
      enabled: false,
      recoveryCodesLeft: 0,
    });
    expect((await client.ok('GET', '/me')).user.twoFactor).toBe('off');
    expect((await signIn(herald, username, password)).res.status).toBe(200);
    const regenerate = await client.post('/account/two-factor/recovery-codes', { code: '123456' });
    expect(regenerate.status).toBe(409);
  });

  it('an admin resets a lost phone: the sessions end and the password alone signs in', async () => {
    const { client, user, username, password } = await teammate(herald, 'viewer');
    await enrol(client, clock);
    const listed = async () =>
      (await herald.console.ok('GET', '/users')).items.find(
        (u: { id: number }) => u.id === user.id,
      );
    expect((await listed()).twoFactor).toBe(true);
    const bad = await herald.console.patch(`/users/${user.id}`, { resetTwoFactor: false });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/^resetTwoFactor: must be true/);
    const reset = await herald.console.ok('PATCH', `/users/${user.id}`, { resetTwoFactor: true });
    expect(reset.twoFactor).toBe(false);
    expect((await listed()).twoFactor).toBe(false);
    expect((await client.get('/me')).status).toBe(401);
    const back = await signIn(herald, username, password);
    expect(back.res.status).toBe(200);
    expect(back.res.body.data.user.twoFactor).toBe('off');
    // A non-admin cannot reset anyone's.
    expect((await back.client.patch(`/users/${user.id}`, { resetTwoFactor: true })).status).toBe(
      403,
    );
  });
});

describe('an administrator requires two-factor for everyone', () => {
  let herald: TestHerald;
  let clock: ManualClock;
  /** An administrator who enrolled before the requirement: free to change settings. */
  let boss: ConsoleClient;
  /** Accounts made before the requirement, each used by one test. */
  const accounts = { newcomer: 'newcomer', late: 'late', walker: 'walker' };
  const PASSWORD = 'teammate password';

  const browserOf = async (username: string) => {
    const client = new ConsoleClient(herald.url);
    await client.ok('POST', '/login', { username, password: PASSWORD });
    return client;
  };

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    herald = await startTestHerald({ clock });
    await herald.console.ok('POST', '/users', {
      username: 'boss',
      role: 'admin',
      password: PASSWORD,
    });
    for (const username of Object.values(accounts)) {
      await herald.console.ok('POST', '/users', { username, role: 'admin', password: PASSWORD });
    }
    boss = await browserOf('boss');
    await enrol(boss, clock);
    await boss.ok('PUT', '/settings', { requireTwoFactor: true });
  });
  afterAll(() => herald?.close(true));

  it('a person without it reaches only enrolment, then everything once enrolled', async () => {
    const client = await browserOf(accounts.newcomer);
    expect((await client.ok('GET', '/me')).user.twoFactor).toBe('required');
    const blocked = await client.get('/logs');
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({ code: 403, msg: TWO_FACTOR_FIRST, data: null });
    expect((await client.get('/status')).body.data.user.twoFactor).toBe('required');
    expect((await client.ok('GET', '/account/two-factor')).required).toBe(true);
    expect((await client.get('/account/sessions')).status).toBe(200);

    await enrol(client, clock);
    expect((await client.ok('GET', '/me')).user.twoFactor).toBe('on');
    expect((await client.get('/logs')).status).toBe(200);
    const off = await client.post('/account/two-factor/disable', { password: PASSWORD });
    expect(off.status).toBe(403);
    expect(off.body.msg).toMatch(/^two-factor: your administrator requires it/);
  });

  it('the requirement reaches open sessions at once, both ways', async () => {
    const client = await browserOf(accounts.late);
    expect((await client.get('/channels')).status).toBe(403);
    // The helper's own administrator never enrolled: the settings are out of its reach too.
    expect((await herald.console.put('/settings', { requireTwoFactor: false })).status).toBe(403);
    await boss.ok('PUT', '/settings', { requireTwoFactor: false });
    try {
      expect((await client.ok('GET', '/me')).user.twoFactor).toBe('off');
      expect((await client.get('/channels')).status).toBe(200);
    } finally {
      await boss.ok('PUT', '/settings', { requireTwoFactor: true });
    }
    expect((await client.get('/channels')).status).toBe(403);
  });

  it('issue 44 §3.3: turning the requirement on ends the streams of accounts without a second factor', async () => {
    const viewer = `viewer-${Date.now()}`;
    await boss.ok('POST', '/users', { username: viewer, role: 'viewer', password: PASSWORD });
    await boss.ok('PUT', '/settings', { requireTwoFactor: false });
    try {
      const viewerBrowser = await browserOf(viewer);
      const unprotected = await openEventStream(herald.url, viewerBrowser);
      const enrolled = await openEventStream(herald.url, boss);
      // The same viewer signed in through OpenID Connect, as sso-accounts marks such a session:
      // the provider is its second factor, so the requirement does not reach it.
      const viaProvider = await browserOf(viewer);
      const token = viaProvider.cookie.slice(viaProvider.cookie.indexOf('=') + 1);
      await Session.update({ signInMethod: 'oidc' }, { where: { id: sessionKey(token) } });
      const provided = await openEventStream(herald.url, viaProvider);
      await Promise.all(
        [unprotected, enrolled, provided].map((s) => s.until((t) => t.includes('retry:'))),
      );
      await boss.ok('PUT', '/settings', { requireTwoFactor: true });
      herald.server.events.emit('send', { id: 4433, status: 'sent' });
      // The viewer's stream ended before this event (`until` throws when the stream ends);
      // left open, it would carry message titles to an account the requirement now shuts out.
      await expect(unprotected.until((t) => t.includes('"id":4433'))).rejects.toThrow(
        /the stream ended/,
      );
      await expect(openEventStream(herald.url, viewerBrowser)).rejects.toThrow(/answered 403/);
      // The administrator with a second factor keeps streaming, as does the provider's session.
      await enrolled.until((t) => t.includes('"id":4433'));
      await provided.until((t) => t.includes('"id":4433'));
      enrolled.close();
      provided.close();
    } finally {
      await boss.ok('PUT', '/settings', { requireTwoFactor: true });
    }
  });

  it('walks every route: enrolment answers, everything else is refused in one place', async () => {
    // An administrator, so no refusal below is the role's.
    const client = await browserOf(accounts.walker);
    const specs = routesOf(consoleRoutes)
      .filter((spec) => accessOf(spec) !== 'public')
      .sort(
        (a, b) => Number(a === consoleRoutes.auth.logout) - Number(b === consoleRoutes.auth.logout),
      );
    const wrong: string[] = [];
    for (const spec of specs) {
      const hasBody = spec.method !== 'get' && spec.method !== 'delete';
      const id = spec.path.includes('/sessions/') ? 'f'.repeat(64) : '999999';
      const controller = new AbortController();
      const res = await fetch(herald.url + spec.path.replace('{id}', id), {
        method: spec.method.toUpperCase(),
        headers: {
          ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
          Cookie: client.cookie,
        },
        body: hasBody ? '{}' : undefined,
        redirect: 'manual',
        signal: controller.signal,
      });
      const json = (res.headers.get('content-type') ?? '').includes('application/json');
      const body = json ? ((await res.json()) as { msg: string }) : null;
      if (!json) controller.abort();
      const refused = res.status === 403 && body?.msg === TWO_FACTOR_FIRST;
      if (refused === BEFORE_TWO_FACTOR.has(spec)) {
        wrong.push(`${label(spec)}: ${res.status} ${body?.msg}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(specs.filter((spec) => BEFORE_TWO_FACTOR.has(spec)).length).toBe(BEFORE_TWO_FACTOR.size);
  }, 60_000);
});
