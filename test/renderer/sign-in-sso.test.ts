import { afterEach, describe, expect, it, vi } from 'vitest';

import type { SignInMethods } from '../../contract';
import ConsoleLayout from '../../renderer/src/layouts/ConsoleLayout.vue';
import SignInPage from '../../renderer/src/pages/SignInPage.vue';
import { useSessionStore } from '../../renderer/src/stores/session-store';
import { fail, installFakeApi, ok } from './helpers/fake-api';
import { FakeEventSource } from './helpers/fake-event-source';
import { createContext, mountWithApp, settle, signedInContext } from './helpers/mount';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

const LOGIN_PATH = '/api/console/sso/oidc/login';
const PASSWORD_ONLY: SignInMethods = { password: true, oidc: null, proxyLogoutUrl: null };
const SSO_AND_PASSWORD: SignInMethods = {
  password: true,
  oidc: { buttonLabel: '', loginPath: LOGIN_PATH },
  proxyLogoutUrl: null,
};
const SSO_ONLY: SignInMethods = {
  password: false,
  oidc: { buttonLabel: 'Sign in with Authentik', loginPath: LOGIN_PATH },
  proxyLogoutUrl: null,
};

/** The sign-in page at `path`, once the status and the sign-in methods are in. */
async function mountSignIn(path: string, methods: SignInMethods, locale: 'en' | 'zh-CN' = 'en') {
  const api = installFakeApi({
    'GET /status': () => ok({ setupRequired: false, version: '1.0.0', user: null }),
    'GET /sign-in/methods': () => ok(methods),
    'POST /login': () => ok({ user: { id: 1, username: 'root', role: 'admin', twoFactor: 'off' } }),
  });
  const ctx = createContext(locale);
  await ctx.router.push(path);
  const { wrapper } = mountWithApp(SignInPage, {}, ctx);
  await vi.waitFor(() => expect(wrapper.find('[data-testid="page-loading"]').exists()).toBe(false));
  await vi.waitFor(() => wrapper.get('h2'));
  return { api, wrapper, ctx };
}

const has = (wrapper: Awaited<ReturnType<typeof mountSignIn>>['wrapper'], id: string) =>
  wrapper.find(`[data-testid="${id}"]`).exists();

describe('SignInPage with single sign-on', () => {
  it('password only: the form, no provider button', async () => {
    const { api, wrapper } = await mountSignIn('/sign-in', PASSWORD_ONLY);
    expect(api.calls.some((c) => c.path === '/sign-in/methods')).toBe(true);
    expect(has(wrapper, 'login-form')).toBe(true);
    expect(has(wrapper, 'sso-sign-in')).toBe(false);
    expect(has(wrapper, 'sso-error')).toBe(false);
    expect(wrapper.get('h2').text()).toBe('Sign in');
  });

  it('SSO and password: the button (default label) leads to the provider with the page asked for, and the form stays', async () => {
    const { wrapper } = await mountSignIn(
      '/sign-in?redirect=/logs%3Fstatus%3Dfailed',
      SSO_AND_PASSWORD,
    );
    const button = wrapper.get('[data-testid="sso-sign-in"]');
    expect(button.element.tagName).toBe('A');
    expect(button.text()).toBe('Sign in with SSO');
    expect(button.attributes('href')).toBe(`${LOGIN_PATH}?next=%2Flogs%3Fstatus%3Dfailed`);
    expect(wrapper.get('.sign-in__or').text()).toBe('or');
    expect(has(wrapper, 'login-form')).toBe(true);
    expect(has(wrapper, 'login-password')).toBe(true);
  });

  it('a foreign redirect is not passed on as next: the button lands on the dashboard', async () => {
    const { wrapper } = await mountSignIn(
      '/sign-in?redirect=//evil.example/x',
      SSO_AND_PASSWORD,
      'zh-CN',
    );
    const button = wrapper.get('[data-testid="sso-sign-in"]');
    expect(button.text()).toBe('使用单点登录');
    expect(button.attributes('href')).toBe(`${LOGIN_PATH}?next=%2F`);
  });

  it('SSO only: only the provider button with its label, no password form and no link to one', async () => {
    const { wrapper } = await mountSignIn('/sign-in', SSO_ONLY);
    expect(wrapper.get('[data-testid="sso-sign-in"]').text()).toBe('Sign in with Authentik');
    expect(wrapper.get('[data-testid="sso-sign-in"]').classes()).toContain('el-button--primary');
    expect(has(wrapper, 'login-form')).toBe(false);
    expect(has(wrapper, 'login-password')).toBe(false);
    expect(wrapper.find('.sign-in__or').exists()).toBe(false);
    expect(wrapper.html()).not.toContain('break-glass');
  });

  it('break-glass: /sign-in?break-glass shows the password form while password sign-in is off, and signs in', async () => {
    const { api, wrapper, ctx } = await mountSignIn(
      '/sign-in?break-glass&redirect=/users',
      SSO_ONLY,
    );
    expect(wrapper.get('h2').text()).toBe('Break-glass sign-in');
    expect(wrapper.get('[data-testid="break-glass-hint"]').text()).toContain(
      'Only the break-glass administrator account',
    );
    expect(has(wrapper, 'sso-sign-in')).toBe(true);
    await wrapper.get('input[data-testid="login-username"]').setValue('root');
    await wrapper.get('input[data-testid="login-password"]').setValue('root password');
    await wrapper.get('[data-testid="login-form"]').trigger('submit');
    await settle(10);
    expect(api.calls.find((c) => c.path === '/login')?.body).toEqual({
      username: 'root',
      password: 'root password',
    });
    await vi.waitFor(() => expect(ctx.router.currentRoute.value.fullPath).toBe('/users'), {
      timeout: 10_000,
    });
    expect(useSessionStore(ctx.pinia).user?.username).toBe('root');
  });

  it('neither way open (password off, no provider): says so instead of an empty card', async () => {
    const { wrapper } = await mountSignIn('/sign-in', { ...PASSWORD_ONLY, password: false });
    expect(has(wrapper, 'login-form')).toBe(false);
    expect(wrapper.get('[data-testid="sign-in-no-method"]').text()).toContain(
      'Ask an administrator',
    );
  });

  it('a server that cannot say how to sign in gets the password form', async () => {
    installFakeApi({
      'GET /status': () => ok({ setupRequired: false, version: '1.0.0', user: null }),
      'GET /sign-in/methods': () => fail(500, 'boom'),
    });
    const ctx = createContext('en');
    await ctx.router.push('/sign-in');
    const { wrapper } = mountWithApp(SignInPage, {}, ctx);
    await vi.waitFor(() => wrapper.get('[data-testid="login-form"]'));
    expect(has(wrapper, 'sso-sign-in')).toBe(false);
  });

  it('first-run setup shows the setup form, never the provider button', async () => {
    installFakeApi({
      'GET /status': () => ok({ setupRequired: true, version: '1.0.0', user: null }),
      'GET /sign-in/methods': () => ok(SSO_ONLY),
    });
    const ctx = createContext('en');
    await ctx.router.push('/sign-in');
    const { wrapper } = mountWithApp(SignInPage, {}, ctx);
    await vi.waitFor(() => wrapper.get('[data-testid="setup-form"]'));
    await settle(5);
    expect(has(wrapper, 'sso-sign-in')).toBe(false);
    expect(has(wrapper, 'setup-code')).toBe(true);
  });
});

describe('SignInPage: a refused single sign-on, in sentences', () => {
  const EXPECTED = {
    'sso-no-account': {
      en: 'there is no Herald account for you and accounts are not created automatically. Ask an administrator to invite you.',
      zh: '请联系管理员邀请你',
    },
    'sso-disabled-account': {
      en: 'your Herald account is disabled. Ask an administrator to enable it.',
      zh: '账户已被停用',
    },
    'sso-failed': {
      en: 'could not finish the sign-in with your provider. Try again',
      zh: '请重试',
    },
    'sso-state': { en: 'Sign in again from this page.', zh: '请在此页重新登录' },
  } as const;

  for (const [code, words] of Object.entries(EXPECTED)) {
    it(`${code}: says what happened and what to do, in English and Chinese`, async () => {
      const en = await mountSignIn(`/sign-in?error=${code}`, SSO_ONLY);
      const alert = en.wrapper.get('[data-testid="sso-error"]');
      expect(alert.attributes('data-code')).toBe(code);
      expect(alert.attributes('role')).toBe('alert');
      expect(alert.text()).toContain('Single sign-on did not sign you in');
      expect(alert.text()).toContain(words.en);
      // The way to try again is still there.
      expect(en.wrapper.find('[data-testid="sso-sign-in"]').exists()).toBe(true);
      en.wrapper.unmount();

      const zh = await mountSignIn(`/sign-in?error=${code}`, SSO_ONLY, 'zh-CN');
      expect(zh.wrapper.get('[data-testid="sso-error"]').text()).toContain(words.zh);
      zh.wrapper.unmount();
    });
  }

  it('an unknown code reads as the general failure, not as nothing', async () => {
    const { wrapper } = await mountSignIn('/sign-in?error=sso-something-new', SSO_AND_PASSWORD);
    expect(wrapper.get('[data-testid="sso-error"]').attributes('data-code')).toBe('sso-failed');
  });
});

describe('signing out ends the provider’s or the proxy’s session too', () => {
  /** Clicks Sign out in the console's header with the server answering `redirectTo`. */
  async function signOut(redirectTo: string | null) {
    vi.stubGlobal('EventSource', FakeEventSource);
    const api = installFakeApi({
      'GET /messages': () => ok({ items: [], total: 0, page: 1, pageSize: 1, unreadCount: 0 }),
      'POST /logout': () => ok({ redirectTo }),
    });
    const assign = vi.spyOn(window.location, 'assign').mockImplementation(() => undefined);
    const ctx = signedInContext('editor');
    await ctx.router.push('/logs');
    const { wrapper } = mountWithApp(
      ConsoleLayout,
      { global: { stubs: { 'router-view': true } } },
      ctx,
    );
    await settle();
    await wrapper.get('[data-testid="sign-out"]').trigger('click');
    await vi.waitFor(() => expect(api.calls.some((c) => c.path === '/logout')).toBe(true));
    await settle(10);
    const result = {
      assigned: assign.mock.calls.map(([url]) => String(url)),
      route: ctx.router.currentRoute.value.name,
      user: useSessionStore(ctx.pinia).user,
    };
    assign.mockRestore();
    wrapper.unmount();
    return result;
  }

  it('goes to the end-session address the server names, as a full navigation', async () => {
    const out = await signOut('https://auth.example.com/end-session?id_token_hint=x');
    expect(out.assigned).toEqual(['https://auth.example.com/end-session?id_token_hint=x']);
    expect(out.user).toBeNull();
  });

  it('stays in the console, on sign-in, when there is nowhere else to go', async () => {
    const out = await signOut(null);
    expect(out.assigned).toEqual([]);
    expect(out.route).toBe('sign-in');
    expect(out.user).toBeNull();
  });

  it('never follows an address that is not http(s)', async () => {
    const out = await signOut('javascript:alert(1)');
    expect(out.assigned).toEqual([]);
    expect(out.route).toBe('sign-in');
  });
});
