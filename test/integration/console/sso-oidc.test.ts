import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import {
  CROSS_SITE_NAVIGATION,
  CookieJar,
  startOidcProvider,
  step,
  type OidcTestProvider,
} from '../../helpers/oidc-test-provider';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/**
 * OpenID Connect against a real provider (oidc-provider on loopback), the browser's side of
 * the flow driven by hand: Herald's redirect to the provider, the provider's sign-in form, its
 * redirect back, Herald's callback. Issue 44 §1.
 */

const SECRET = 'herald-client-secret';

interface Landing {
  /** Where Herald's callback sent the browser (a path). */
  location: string;
  /** The browser, signed in when the sign-in worked. */
  client: ConsoleClient;
  jar: CookieJar;
  /** The callback URL the provider sent the browser to, and the pending-login cookie it carried. */
  callbackUrl: string;
  pendingCookie: string;
}

/** Signs in at the provider as `accountId` and follows every redirect until Herald's callback answered. */
async function ssoSignIn(herald: TestHerald, accountId: string, next?: string): Promise<Landing> {
  const jar = new CookieJar();
  const query = next === undefined ? '' : `?next=${encodeURIComponent(next)}`;
  const start = await step(jar, `${herald.url}/api/console/sso/oidc/login${query}`);
  expect(start.status).toBe(302);
  const pendingCookie = jar.get('herald_oidc')!;
  expect(pendingCookie).toBeTruthy();
  // At the provider (its own cookies): the authorization request, its sign-in form, back.
  const providerJar = new CookieJar();
  let at = await step(providerJar, start.location!);
  for (let hops = 0; hops < 10 && !at.location!.startsWith(herald.url); hops++) {
    if (at.location!.includes('/interaction/')) {
      at = await step(providerJar, at.location!, {
        prompt: 'login',
        login: accountId,
        password: 'any',
      });
    } else {
      at = await step(providerJar, at.location!);
    }
  }
  const callbackUrl = at.location!;
  expect(callbackUrl.startsWith(`${herald.url}/api/console/sso/oidc/callback?`)).toBe(true);
  // As a browser arrives from the provider: a cross-site top-level navigation.
  const done = await step(jar, callbackUrl, undefined, CROSS_SITE_NAVIGATION);
  expect(done.status).toBe(302);
  const client = new ConsoleClient(herald.url);
  client.cookie = jar.get('herald_session') ? `herald_session=${jar.get('herald_session')}` : '';
  return {
    location: done.location!.slice(herald.url.length),
    client,
    jar,
    callbackUrl,
    pendingCookie,
  };
}

// One provider for the file; each Herald registers its client when it started (one Herald at a
// time: the models are bound to the database of the last one started).
let provider: OidcTestProvider;
beforeAll(async () => {
  provider = await startOidcProvider();
});
afterAll(() => provider?.close());

describe('OpenID Connect sign-in', () => {
  let herald: TestHerald;
  let admin: ConsoleClient;

  beforeAll(async () => {
    herald = await startTestHerald({ env: { HERALD_OIDC_ALLOW_HTTP: '1' } });
    provider.register([
      { clientId: 'herald', clientSecret: SECRET, heraldUrl: herald.url },
      { clientId: 'herald-public', heraldUrl: herald.url },
    ]);
    admin = herald.console;
    await admin.ok('PUT', '/settings/sign-in', {
      issuer: provider.issuer,
      clientId: 'herald',
      clientSecret: SECRET,
      adminGroups: ['herald-admins'],
      editorGroups: ['herald-editors'],
      viewerGroups: ['herald-viewers'],
    });
  });
  afterAll(() => herald?.close(true));

  it('creates the account at the first sign-in, with the role its groups map to', async () => {
    provider.people.set('sub-ed', { preferred_username: 'edna', groups: ['herald-editors'] });
    const landing = await ssoSignIn(herald, 'sub-ed', '/logs?page=2');
    expect(landing.location).toBe('/logs?page=2');
    const me = await landing.client.ok('GET', '/me');
    expect(me.user).toMatchObject({ username: 'edna', role: 'editor', twoFactor: 'off' });
    const users = (await admin.ok('GET', '/users')).items;
    expect(users.find((u: any) => u.username === 'edna')).toMatchObject({
      role: 'editor',
      invited: false,
    });
    // The SSO account has no password: the password form does not open it.
    expect(
      (
        await herald.console.request(
          'POST',
          '/login',
          { username: 'edna', password: 'x'.repeat(8) },
          {},
        )
      ).status,
    ).not.toBe(200);
  });

  it('follows the groups claim at every sign-in', async () => {
    provider.people.set('sub-role', { preferred_username: 'rolf', groups: ['herald-viewers'] });
    expect((await (await ssoSignIn(herald, 'sub-role')).client.ok('GET', '/me')).user.role).toBe(
      'viewer',
    );
    provider.people.set('sub-role', { preferred_username: 'rolf', groups: ['herald-admins', 'x'] });
    const again = await ssoSignIn(herald, 'sub-role');
    expect(again.location).toBe('/');
    expect((await again.client.ok('GET', '/me')).user).toMatchObject({
      username: 'rolf',
      role: 'admin',
    });
    // A groups claim naming no mapped group leaves the role as it is.
    provider.people.set('sub-role', { preferred_username: 'rolf', groups: ['unrelated'] });
    expect((await (await ssoSignIn(herald, 'sub-role')).client.ok('GET', '/me')).user.role).toBe(
      'admin',
    );
    const audit = await admin.ok('GET', '/audit?action=user.update');
    expect(
      audit.items.find(
        (e: any) =>
          e.targetName === 'rolf' &&
          e.changes.some(
            (c: any) => c.field === 'role' && c.before === 'viewer' && c.after === 'admin',
          ),
      ),
    ).toBeTruthy();
  });

  it('keeps an account bound to its issuer and subject: another subject with the same username gets its own', async () => {
    provider.people.set('sub-alice', { preferred_username: 'alice', groups: ['herald-admins'] });
    const alice = await ssoSignIn(herald, 'sub-alice');
    const aliceUser = (await alice.client.ok('GET', '/me')).user;
    expect(aliceUser).toMatchObject({ username: 'alice', role: 'admin' });
    // Someone else at the provider names themself alice.
    provider.people.set('sub-mallory', { preferred_username: 'alice', groups: [] });
    const mallory = await ssoSignIn(herald, 'sub-mallory');
    const malloryUser = (await mallory.client.ok('GET', '/me')).user;
    expect(malloryUser.id).not.toBe(aliceUser.id);
    expect(malloryUser).toMatchObject({ username: 'alice-2', role: 'viewer' });
    // And a password account's name is no way in either.
    provider.people.set('sub-admin', { preferred_username: 'admin' });
    const imposter = await ssoSignIn(herald, 'sub-admin');
    expect((await imposter.client.ok('GET', '/me')).user).toMatchObject({
      username: 'admin-2',
      role: 'viewer',
    });
    // Alice signing in again is still alice.
    expect((await (await ssoSignIn(herald, 'sub-alice')).client.ok('GET', '/me')).user.id).toBe(
      aliceUser.id,
    );
  });

  it('refuses a wrong state, a reused code and a foreign next', async () => {
    provider.people.set('sub-checks', { preferred_username: 'checks' });
    const landing = await ssoSignIn(herald, 'sub-checks');
    expect(landing.location).toBe('/');

    // The same callback again, with the pending-login cookie put back: the provider takes a
    // code once.
    const replay = new CookieJar();
    replay.set('herald_oidc', landing.pendingCookie);
    const reused = await step(replay, landing.callbackUrl);
    expect(reused.location).toBe(`${herald.url}/sign-in?error=sso-failed`);
    expect(replay.get('herald_session')).toBeUndefined();

    // Only a browser's navigation passes the console's cross-site guard: a script on another
    // site fetching the callback (or any other console route) is refused as before.
    const fetched = await step(replay, landing.callbackUrl, undefined, {
      'Sec-Fetch-Site': 'cross-site',
      'Sec-Fetch-Mode': 'cors',
      'Sec-Fetch-Dest': 'empty',
    });
    expect(fetched.status).toBe(403);
    expect(
      (
        await step(
          new CookieJar(),
          `${herald.url}/api/console/sign-in/methods`,
          undefined,
          CROSS_SITE_NAVIGATION,
        )
      ).status,
    ).toBe(403);

    // A state that is not the one this browser's sign-in started with.
    const jar = new CookieJar();
    const start = await step(jar, `${herald.url}/api/console/sso/oidc/login`);
    expect(new URL(start.location!).searchParams.get('code_challenge_method')).toBe('S256');
    const wrong = await step(
      jar,
      `${herald.url}/api/console/sso/oidc/callback?code=abc&state=not-the-state`,
    );
    expect(wrong.location).toBe(`${herald.url}/sign-in?error=sso-state`);
    // No sign-in started in this browser at all.
    const none = await step(
      new CookieJar(),
      `${herald.url}/api/console/sso/oidc/callback?code=abc&state=x`,
    );
    expect(none.location).toBe(`${herald.url}/sign-in?error=sso-state`);
    // A forged pending-login cookie.
    const forged = new CookieJar();
    forged.set('herald_oidc', 'enc%3Av1%3AAAAA');
    expect(
      (await step(forged, `${herald.url}/api/console/sso/oidc/callback?state=x`)).location,
    ).toBe(`${herald.url}/sign-in?error=sso-state`);

    for (const foreign of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      'logs',
    ]) {
      const away = await ssoSignIn(herald, 'sub-checks', foreign);
      expect(away.location, foreign).toBe('/');
    }
    expect((await ssoSignIn(herald, 'sub-checks', '/messages/3')).location).toBe('/messages/3');
  });

  it('signs in as a public client, PKCE alone tying the code to the browser', async () => {
    await admin.ok('PUT', '/settings/sign-in', { clientId: 'herald-public', clientSecret: '' });
    try {
      expect((await admin.ok('GET', '/settings/sign-in')).clientSecretSet).toBe(false);
      provider.people.set('sub-public', { preferred_username: 'pubby' });
      const landing = await ssoSignIn(herald, 'sub-public');
      expect((await landing.client.ok('GET', '/me')).user.username).toBe('pubby');
    } finally {
      await admin.ok('PUT', '/settings/sign-in', { clientId: 'herald', clientSecret: SECRET });
    }
  });

  it('answers the provider end-session address at sign-out', async () => {
    provider.people.set('sub-out', { preferred_username: 'outgoing' });
    const landing = await ssoSignIn(herald, 'sub-out');
    const { redirectTo } = await landing.client.ok('POST', '/logout');
    const url = new URL(redirectTo);
    expect(`${url.origin}${url.pathname}`).toBe(`${provider.issuer}/session/end`);
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe(`${herald.url}/sign-in`);
    expect(url.searchParams.get('id_token_hint')).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    // The provider takes it: its sign-out page, not an error.
    const atProvider = await step(new CookieJar(), redirectTo);
    expect(atProvider.status).toBe(200);
    expect(atProvider.body).not.toMatch(/error/i);
    expect((await landing.client.get('/me')).status).toBe(401);
    // A password session has nowhere else to go.
    const { client } = await herald.signedInAs('viewer');
    expect(await client.ok('POST', '/logout')).toEqual({ redirectTo: null });
  });

  it('records SSO sign-ins with their provider, and the failed ones', async () => {
    provider.people.set('sub-audit', { preferred_username: 'audra' });
    await ssoSignIn(herald, 'sub-audit');
    const signIns = await admin.ok('GET', '/audit?action=auth.sign-in');
    expect(signIns.items.find((e: any) => e.username === 'audra').changes).toEqual([
      { field: 'provider', before: null, after: provider.issuer },
    ]);
    const created = await admin.ok('GET', '/audit?action=user.create');
    expect(created.items.find((e: any) => e.targetName === 'audra').changes).toContainEqual({
      field: 'provider',
      before: null,
      after: provider.issuer,
    });
    await step(new CookieJar(), `${herald.url}/api/console/sso/oidc/callback?state=x`);
    const failed = await admin.ok('GET', '/audit?action=auth.sign-in-failed');
    expect(failed.items[0].changes).toEqual([
      { field: 'provider', before: null, after: provider.issuer },
      { field: 'reason', before: null, after: 'sso-state' },
    ]);
  });

  it('with auto-create off, signs in only accounts an administrator invited', async () => {
    await admin.ok('PUT', '/settings/sign-in', { autoCreate: false });
    try {
      provider.people.set('sub-stranger', { preferred_username: 'stranger' });
      expect((await ssoSignIn(herald, 'sub-stranger')).location).toBe(
        '/sign-in?error=sso-no-account',
      );
      // An invited account of that name is bound at its first sign-in, and the invite ends.
      const invited = await admin.ok('POST', '/users', { username: 'invitee', role: 'editor' });
      expect(invited.inviteUrl).toBeTruthy();
      provider.people.set('sub-invitee', { preferred_username: 'invitee' });
      const landing = await ssoSignIn(herald, 'sub-invitee');
      expect((await landing.client.ok('GET', '/me')).user).toMatchObject({
        id: invited.id,
        role: 'editor',
      });
      expect(
        (await admin.ok('GET', '/users')).items.find((u: any) => u.id === invited.id).invited,
      ).toBe(false);
      // Another subject naming itself invitee now finds nothing to bind to.
      provider.people.set('sub-invitee-2', { preferred_username: 'invitee' });
      expect((await ssoSignIn(herald, 'sub-invitee-2')).location).toBe(
        '/sign-in?error=sso-no-account',
      );
      // An account with a password is never bound by name.
      const { user } = await herald.signedInAs('editor', 'has-password');
      provider.people.set('sub-has-password', { preferred_username: 'has-password' });
      expect((await ssoSignIn(herald, 'sub-has-password')).location).toBe(
        '/sign-in?error=sso-no-account',
      );
      expect(user.username).toBe('has-password');
      // A disabled SSO account is told so.
      await admin.ok('PATCH', `/users/${invited.id}`, { disabled: true });
      expect((await ssoSignIn(herald, 'sub-invitee')).location).toBe(
        '/sign-in?error=sso-disabled-account',
      );
    } finally {
      await admin.ok('PUT', '/settings/sign-in', { autoCreate: true });
    }
  });

  it('switches password sign-in off for everyone but the break-glass administrator', async () => {
    const refused = await admin.put('/settings/sign-in', { passwordSignIn: false });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/^breakGlassUsername: /);
    // Not without a way in besides the break-glass account; nothing of the change is kept.
    const noProvider = await admin.put('/settings/sign-in', {
      issuer: '',
      passwordSignIn: false,
      breakGlassUsername: 'admin',
    });
    expect(noProvider.body.msg).toMatch(/^passwordSignIn: can be switched off only while/);
    expect(await admin.ok('GET', '/settings/sign-in')).toMatchObject({
      issuer: provider.issuer,
      passwordSignIn: true,
      breakGlassUsername: '',
    });
    const { username: editorName } = (await herald.signedInAs('editor', 'pw-editor')).user;
    expect(
      (
        await admin.put('/settings/sign-in', {
          passwordSignIn: false,
          breakGlassUsername: editorName,
        })
      ).body.msg,
    ).toMatch(/^breakGlassUsername: "pw-editor" is not an enabled administrator/);
    await admin.ok('PUT', '/settings/sign-in', {
      passwordSignIn: false,
      breakGlassUsername: 'admin',
    });
    try {
      const methods = await new ConsoleClient(herald.url).ok('GET', '/sign-in/methods');
      expect(methods).toEqual({
        password: false,
        oidc: { buttonLabel: '', loginPath: '/api/console/sso/oidc/login' },
        proxyLogoutUrl: null,
      });
      const editor = await new ConsoleClient(herald.url).post('/login', {
        username: 'pw-editor',
        password: 'pw-editor password',
      });
      expect(editor.status).toBe(403);
      expect(editor.body.msg).toMatch(/password sign-in is switched off/);
      const breakGlass = new ConsoleClient(herald.url);
      expect(
        (await breakGlass.post('/login', { username: 'admin', password: 'correct horse battery' }))
          .status,
      ).toBe(200);
      // An invite link no longer sets a password (the invite is taken up through the provider).
      const invited = await admin.ok('POST', '/users', {
        username: 'no-pw-invitee',
        role: 'viewer',
      });
      const token = new URL(invited.inviteUrl).searchParams.get('token');
      const accept = await new ConsoleClient(herald.url).post('/invite', {
        token,
        password: 'a long enough password',
      });
      expect(accept.status).toBe(403);
      expect(accept.body.msg).toMatch(/password sign-in is switched off/);
      expect(
        (await admin.ok('GET', '/users')).items.find((u: any) => u.id === invited.id).invited,
      ).toBe(true);
      // SSO still signs in.
      provider.people.set('sub-ed', { preferred_username: 'edna', groups: ['herald-editors'] });
      expect((await ssoSignIn(herald, 'sub-ed')).location).toBe('/');
    } finally {
      await admin.ok('PUT', '/settings/sign-in', { passwordSignIn: true });
    }
    expect(
      (
        await new ConsoleClient(herald.url).post('/login', {
          username: 'pw-editor',
          password: 'pw-editor password',
        })
      ).status,
    ).toBe(200);
  });

  it('shows the settings with the secret hidden, and audits a change without the secret', async () => {
    const view = await admin.ok('GET', '/settings/sign-in');
    expect(view).toMatchObject({
      issuer: provider.issuer,
      clientId: 'herald',
      clientSecretSet: true,
      scopes: 'openid profile email',
      groupsClaim: 'groups',
      autoCreate: true,
      allowHttp: true,
      fromEnvironment: [],
      redirectUri: `${herald.url}/api/console/sso/oidc/callback`,
      proxy: null,
    });
    expect(JSON.stringify(view)).not.toContain(SECRET);
    await admin.ok('PUT', '/settings/sign-in', {
      clientSecret: 'another-secret',
      buttonLabel: 'Team ID',
    });
    const entry = (await admin.ok('GET', '/audit?action=settings.update')).items[0];
    expect(entry.targetName).toBe('sign-in');
    expect(entry.changes).toEqual(
      expect.arrayContaining([
        { field: 'buttonLabel', before: '', after: 'Team ID' },
        { field: 'clientSecret', changed: true },
      ]),
    );
    expect(JSON.stringify(entry)).not.toContain('another-secret');
    await admin.ok('PUT', '/settings/sign-in', { clientSecret: SECRET, buttonLabel: '' });
    // Refusals name the field.
    const noOpenid = await admin.put('/settings/sign-in', { scopes: 'profile email' });
    expect(noOpenid.body.msg).toBe('scopes: must include openid');
    expect((await admin.put('/settings/sign-in', { issuer: 'ftp://id.example' })).status).toBe(400);
    const viewer = (await herald.signedInAs('viewer')).client;
    expect((await viewer.get('/settings/sign-in')).status).toBe(403);
  });
});

describe('OpenID Connect settings from the environment', () => {
  let envHerald: TestHerald;

  beforeAll(async () => {
    envHerald = await startTestHerald({
      env: {
        HERALD_OIDC_ALLOW_HTTP: '1',
        HERALD_OIDC_ISSUER: provider.issuer,
        HERALD_OIDC_CLIENT_ID: 'env-herald',
        HERALD_OIDC_CLIENT_SECRET: SECRET,
        HERALD_OIDC_ADMIN_GROUPS: 'herald-admins',
        HERALD_OIDC_BUTTON_LABEL: 'Sign in with Test ID',
      },
    });
    provider.register([{ clientId: 'env-herald', clientSecret: SECRET, heraldUrl: envHerald.url }]);
  });
  afterAll(() => envHerald?.close(true));

  it('lets the environment win, and refuses a change to what it sets', async () => {
    const envAdmin = envHerald.console;
    const view = await envAdmin.ok('GET', '/settings/sign-in');
    expect(view).toMatchObject({
      issuer: provider.issuer,
      clientId: 'env-herald',
      clientSecretSet: true,
      adminGroups: ['herald-admins'],
      buttonLabel: 'Sign in with Test ID',
    });
    expect([...view.fromEnvironment].sort()).toEqual(
      ['adminGroups', 'buttonLabel', 'clientId', 'clientSecret', 'issuer'].sort(),
    );
    const refused = await envAdmin.put('/settings/sign-in', { clientId: 'other' });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/^clientId: is set by HERALD_OIDC_CLIENT_ID/);
    expect((await envAdmin.put('/settings/sign-in', { clientSecret: 'x' })).body.msg).toMatch(
      /^clientSecret: is set by HERALD_OIDC_CLIENT_SECRET/,
    );
    // The value in force sent back (a form saved whole) and the fields it does not set are taken.
    await envAdmin.ok('PUT', '/settings/sign-in', {
      clientId: 'env-herald',
      editorGroups: ['eds'],
    });
    expect(await new ConsoleClient(envHerald.url).ok('GET', '/sign-in/methods')).toMatchObject({
      oidc: { buttonLabel: 'Sign in with Test ID' },
    });
    provider.people.set('sub-env', { preferred_username: 'envy', groups: ['herald-admins'] });
    const landing = await ssoSignIn(envHerald, 'sub-env');
    expect((await landing.client.ok('GET', '/me')).user).toMatchObject({
      username: 'envy',
      role: 'admin',
    });
  });
});

describe('HERALD_OIDC_* at start', () => {
  it('stops a real start naming the variable, before the data folder is touched', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-oidc-refused-'));
    try {
      await expect(
        startTestHerald({
          dataDir,
          setup: false,
          postgres: false,
          env: { HERALD_OIDC_ISSUER: 'http://id.lan', HERALD_OIDC_CLIENT_ID: 'h' },
        }),
      ).rejects.toThrow(/^HERALD_OIDC_ISSUER uses plain http/);
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
