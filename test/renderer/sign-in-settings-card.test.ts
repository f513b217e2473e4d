import { afterEach, describe, expect, it, vi } from 'vitest';

import type { SignInSettings } from '../../contract';
import SignInSettingsCard from '../../renderer/src/components/settings/SignInSettingsCard.vue';
import { fieldRefusals, patchOf, wordRefusal } from '../../renderer/src/lib/sign-in-settings';
import { createAppI18n } from '../../renderer/src/i18n';
import { type FakeRequest, fail, installFakeApi, ok } from './helpers/fake-api';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

const SETTINGS: SignInSettings = {
  issuer: 'https://auth.example.com/application/o/herald/',
  clientId: 'herald',
  clientSecretSet: true,
  scopes: 'openid profile email',
  usernameClaim: '',
  groupsClaim: 'groups',
  adminGroups: ['herald-admins'],
  editorGroups: [],
  viewerGroups: [],
  autoCreate: true,
  buttonLabel: '',
  passwordSignIn: true,
  breakGlassUsername: '',
  allowHttp: false,
  fromEnvironment: [],
  redirectUri: 'https://herald.example.com/api/console/sso/oidc/callback',
  proxy: null,
};

const account = (id: number, username: string, role: string, more: object = {}) => ({
  id,
  username,
  role,
  disabled: false,
  invited: false,
  inviteExpiresAt: null,
  twoFactor: false,
  createdAt: '2026-11-01T00:00:00.000Z',
  ...more,
});

/** The card against a fake server that keeps what Save sends (as the real one answers). */
async function mountCard(
  start: SignInSettings,
  locale: 'en' | 'zh-CN' = 'en',
  refuse?: (req: FakeRequest) => ReturnType<typeof fail> | null,
) {
  let current = { ...start };
  const api = installFakeApi({
    'GET /settings/sign-in': () => ok(current),
    'PUT /settings/sign-in': (req) => {
      const refusal = refuse?.(req);
      if (refusal) return refusal;
      const { clientSecret, ...rest } = req.body as Record<string, unknown>;
      current = { ...current, ...rest };
      if (clientSecret !== undefined) current.clientSecretSet = clientSecret !== '';
      return ok(current);
    },
    'GET /users': () =>
      ok({
        items: [
          account(1, 'root', 'admin'),
          account(2, 'ed', 'editor'),
          account(3, 'gone', 'admin', { disabled: true }),
          account(4, 'newbie', 'admin', { invited: true }),
        ],
        total: 4,
        page: 1,
        pageSize: 4,
      }),
  });
  const { wrapper } = mountWithApp(SignInSettingsCard, {}, signedInContext('admin', locale));
  await vi.waitFor(() => wrapper.get('[data-testid="sign-in-settings-save"]'));
  await settle();
  return { api, wrapper };
}

type Wrapper = Awaited<ReturnType<typeof mountCard>>['wrapper'];
const input = (w: Wrapper, id: string) => w.get<HTMLInputElement>(`input[data-testid="${id}"]`);
const puts = (api: Awaited<ReturnType<typeof mountCard>>['api']) =>
  api.calls.filter((c) => c.method === 'PUT').map((c) => c.body);
async function save(w: Wrapper) {
  await w.get('form').trigger('submit');
  await settle(10);
}

describe('Settings → Sign-in card', () => {
  it('shows the effective values and the redirect URI; Save sends only what changed', async () => {
    const { api, wrapper } = await mountCard(SETTINGS);
    expect(input(wrapper, 'sign-in-issuer').element.value).toBe(SETTINGS.issuer);
    expect(input(wrapper, 'sign-in-clientId').element.value).toBe('herald');
    expect(input(wrapper, 'sign-in-redirect-uri').element.value).toBe(SETTINGS.redirectUri);
    expect(input(wrapper, 'sign-in-redirect-uri').attributes('readonly')).toBeDefined();
    expect(wrapper.find('[data-testid="sign-in-redirect-uri-copy"]').exists()).toBe(true);
    expect(wrapper.get('[data-testid="sign-in-adminGroups"]').text()).toContain('herald-admins');
    expect(wrapper.get('[data-testid="sign-in-proxy-off"]').text()).toContain(
      'HERALD_AUTH_PROXY_HEADER',
    );
    expect(wrapper.get('[data-testid="sign-in-docs"]').text()).toContain(
      'docs/running-for-a-team.md',
    );

    await input(wrapper, 'sign-in-buttonLabel').setValue('  Sign in with Authentik ');
    await save(wrapper);
    expect(puts(api)).toEqual([{ buttonLabel: 'Sign in with Authentik' }]);
    expect(input(wrapper, 'sign-in-buttonLabel').element.value).toBe('Sign in with Authentik');
  });

  it('the client secret is written only: set / not set, replaced when typed, cleared with Clear', async () => {
    const { api, wrapper } = await mountCard(SETTINGS);
    const state = () => wrapper.get('[data-testid="sign-in-secret-state"]').text();
    expect(input(wrapper, 'sign-in-clientSecret').element.value).toBe('');
    expect(state()).toBe('A secret is set (it is never shown). Type a new one to replace it.');

    // Nothing typed: the stored secret is kept (not sent).
    await save(wrapper);
    expect(puts(api)).toEqual([{}]);

    await input(wrapper, 'sign-in-clientSecret').setValue('s3cret');
    expect(state()).toBe('Save replaces the stored secret with this one.');
    await save(wrapper);
    expect(puts(api).at(-1)).toEqual({ clientSecret: 's3cret' });
    // What was typed is not kept on the page once saved.
    expect(input(wrapper, 'sign-in-clientSecret').element.value).toBe('');

    await wrapper.get('[data-testid="sign-in-secret-clear"]').trigger('click');
    expect(state()).toBe('Save removes the stored secret.');
    await save(wrapper);
    expect(puts(api).at(-1)).toEqual({ clientSecret: '' });
    expect(state()).toBe('No secret is set.');
    expect(wrapper.find('[data-testid="sign-in-secret-clear"]').exists()).toBe(false);
  });

  it('fields the environment sets are read-only, named by their variable, and never sent', async () => {
    const { api, wrapper } = await mountCard(
      {
        ...SETTINGS,
        fromEnvironment: ['issuer', 'clientSecret', 'adminGroups', 'autoCreate'],
        allowHttp: true,
      },
      'zh-CN',
    );
    expect(input(wrapper, 'sign-in-issuer').attributes('disabled')).toBeDefined();
    expect(wrapper.get('[data-testid="sign-in-env-issuer"]').text()).toBe(
      '由 HERALD_OIDC_ISSUER 设置；请在那里修改。',
    );
    expect(input(wrapper, 'sign-in-clientSecret').attributes('disabled')).toBeDefined();
    expect(wrapper.get('[data-testid="sign-in-env-clientSecret"]').text()).toContain(
      'HERALD_OIDC_CLIENT_SECRET',
    );
    expect(wrapper.find('[data-testid="sign-in-secret-clear"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="sign-in-env-adminGroups"]').text()).toContain(
      'HERALD_OIDC_ADMIN_GROUPS',
    );
    expect(wrapper.get('[data-testid="sign-in-autoCreate"]').classes()).toContain('is-disabled');
    expect(wrapper.get('[data-testid="sign-in-env-autoCreate"]').text()).toContain(
      'HERALD_OIDC_AUTO_CREATE',
    );
    // Fields left to the console stay editable.
    expect(input(wrapper, 'sign-in-clientId').attributes('disabled')).toBeUndefined();
    expect(wrapper.find('[data-testid="sign-in-env-clientId"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="sign-in-allow-http"]').text()).toContain(
      'HERALD_OIDC_ALLOW_HTTP',
    );

    await input(wrapper, 'sign-in-clientId').setValue('herald-2');
    await save(wrapper);
    expect(puts(api)).toEqual([{ clientId: 'herald-2' }]);
  });

  it('a refusal that names a field shows under that field, not under the form', async () => {
    const { api, wrapper } = await mountCard(SETTINGS, 'en', (req) =>
      (req.body as { issuer?: string }).issuer === 'not a url'
        ? fail(400, 'issuer: must be an http(s) address')
        : null,
    );
    await input(wrapper, 'sign-in-issuer').setValue('not a url');
    await save(wrapper);
    const field = wrapper.get('[data-testid="sign-in-field-issuer"]');
    // Element Plus shows a field's error a moment after its state turns (a debounce).
    await vi.waitFor(() =>
      expect(field.get('.el-form-item__error').text()).toBe(
        'Must be an https:// address (http:// only with HERALD_OIDC_ALLOW_HTTP=1).',
      ),
    );
    expect(field.classes()).toContain('is-error');
    expect(wrapper.find('[data-testid="sign-in-settings-error"]').exists()).toBe(false);
    // The draft is kept so it can be fixed; a good value saves and the field error goes.
    expect(input(wrapper, 'sign-in-issuer').element.value).toBe('not a url');
    await input(wrapper, 'sign-in-issuer').setValue('https://id.example.org');
    await save(wrapper);
    expect(puts(api).at(-1)).toEqual({ issuer: 'https://id.example.org' });
    await vi.waitFor(() =>
      expect(
        wrapper.find('[data-testid="sign-in-field-issuer"] .el-form-item__error').exists(),
      ).toBe(false),
    );
  });

  it('password sign-in off: the break-glass admin is chosen from enabled administrators; a refusal without one shows', async () => {
    const { api, wrapper } = await mountCard(SETTINGS, 'zh-CN', (req) => {
      const body = req.body as { passwordSignIn?: boolean; breakGlassUsername?: string };
      return body.passwordSignIn === false && !body.breakGlassUsername
        ? fail(
            400,
            'breakGlassUsername: is required to switch password sign-in off: name the administrator account that keeps it',
          )
        : null;
    });
    await wrapper.get('[data-testid="sign-in-passwordSignIn"]').trigger('click');
    await save(wrapper);
    await vi.waitFor(() =>
      expect(
        wrapper.get('[data-testid="sign-in-field-breakGlassUsername"] .el-form-item__error').text(),
      ).toBe('关闭密码登录前，请先选择保留密码登录的管理员账户。'),
    );

    // Only root can be chosen: ed is an editor, gone is disabled, newbie never set a password.
    await wrapper.get('[data-testid="sign-in-breakGlassUsername"]').trigger('click');
    await settle();
    const options = [...document.querySelectorAll('[data-testid^="sign-in-break-glass-option-"]')];
    expect(options.map((o) => o.textContent?.trim())).toEqual(['root']);
    (options[0] as HTMLElement).click();
    await settle();
    await save(wrapper);
    expect(puts(api).at(-1)).toEqual({ passwordSignIn: false, breakGlassUsername: 'root' });
    await vi.waitFor(() =>
      expect(
        wrapper
          .find('[data-testid="sign-in-field-breakGlassUsername"] .el-form-item__error')
          .exists(),
      ).toBe(false),
    );
  });

  it('a refusal that names no field of the card shows under the form', async () => {
    const { wrapper } = await mountCard(SETTINGS, 'en', () =>
      fail(400, 'the provider at this issuer does not answer discovery'),
    );
    await save(wrapper);
    expect(wrapper.get('[data-testid="sign-in-settings-error"]').text()).toContain(
      'does not answer discovery',
    );
  });

  it('shows the proxy header read-only when the environment sets one', async () => {
    const { wrapper } = await mountCard({
      ...SETTINGS,
      proxy: {
        header: 'Remote-User',
        groupsHeader: 'Remote-Groups',
        logoutUrl: null,
        autoCreate: false,
      },
    });
    const proxy = wrapper.get('[data-testid="sign-in-proxy"]');
    expect(proxy.text()).toContain('Remote-User');
    expect(proxy.text()).toContain('Remote-Groups');
    expect(proxy.text()).toContain('Not set');
    expect(proxy.findAll('input')).toHaveLength(0);
    expect(wrapper.find('[data-testid="sign-in-proxy-off"]').exists()).toBe(false);
  });

  it('a failed load offers a retry in the card', async () => {
    installFakeApi({ 'GET /settings/sign-in': () => fail(500, 'boom') });
    const { wrapper } = mountWithApp(SignInSettingsCard, {}, signedInContext('admin'));
    await vi.waitFor(() => wrapper.get('[data-testid="sign-in-settings-load-error"]'));
    expect(wrapper.find('[data-testid="sign-in-settings-save"]').exists()).toBe(false);
  });
});

describe('sign-in settings helpers', () => {
  it('fieldRefusals splits the server’s describeIssues by field, and gives up on anything else', () => {
    expect(
      fieldRefusals('issuer: must be an http(s) address; adminGroups.0: must not be empty'),
    ).toEqual({ issuer: 'must be an http(s) address', adminGroups: 'must not be empty' });
    expect(fieldRefusals('scopes: must include openid; e.g. openid profile')).toEqual({
      scopes: 'must include openid; e.g. openid profile',
    });
    expect(fieldRefusals('password: is not correct')).toBeNull();
    expect(fieldRefusals('something went wrong')).toBeNull();
  });

  it('patchOf leaves out the fields the environment sets, even when the draft differs', () => {
    const loaded = { ...SETTINGS, fromEnvironment: ['issuer', 'clientSecret'] };
    const draft = {
      ...loaded,
      issuer: 'https://other.example',
      viewerGroups: ['staff'],
    };
    expect(patchOf(loaded, draft, 'typed')).toEqual({ viewerGroups: ['staff'] });
  });

  it('wordRefusal says the server’s known refusals in the person’s language, and others as sent', () => {
    const zh = createAppI18n('zh-CN').global.t;
    const en = createAppI18n('en').global.t;
    expect(
      wordRefusal("is set by HERALD_OIDC_ISSUER in Herald's environment; change it there", zh),
    ).toBe('由 HERALD_OIDC_ISSUER 设置；请在那里修改。');
    expect(wordRefusal('"bob" is not an enabled administrator account with a password', en)).toBe(
      '“bob” is not an enabled administrator account with a password.',
    );
    expect(wordRefusal('must include openid', zh)).toBe('必须包含 openid。');
    expect(wordRefusal('something new the server says', zh)).toBe('something new the server says');
  });
});
