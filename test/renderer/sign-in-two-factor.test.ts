import { afterEach, describe, expect, it, vi } from 'vitest';

import InvitePage from '../../renderer/src/pages/InvitePage.vue';
import SignInPage from '../../renderer/src/pages/SignInPage.vue';
import { useSessionStore } from '../../renderer/src/stores/session-store';
import { fail, installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

const ANN = { id: 7, username: 'ann', role: 'editor', twoFactor: 'on' };
const needsCode = (msg: string) => ({ code: 401, msg, data: { twoFactorRequired: true } });

describe('SignInPage: the code step', () => {
  it('asks for the code when the server says so, shows a wrong one, signs in with the right one', async () => {
    const api = installFakeApi({
      'GET /status': () => ok({ setupRequired: false, version: '1.0.0', user: null }),
      'POST /login': (req) => {
        const { password, code } = req.body as { password: string; code?: string };
        if (password !== 'ann password') return fail(401, 'wrong username or password');
        if (code === undefined) return needsCode('code: is required; this account signs in…');
        if (code !== '123456') return needsCode('code: is not correct; use the current code');
        return ok({ user: ANN });
      },
    });
    const ctx = createContext('en');
    await ctx.router.push('/sign-in?redirect=/logs');
    const { wrapper } = mountWithApp(SignInPage, {}, ctx);
    // The status call first: the form shows a moment before it, and hides while it runs.
    await vi.waitFor(() => expect(api.calls.some((c) => c.path === '/status')).toBe(true));
    await settle(10);
    expect(wrapper.find('[data-testid="login-code"]').exists()).toBe(false);

    await wrapper.get('input[data-testid="login-username"]').setValue('ann');
    await wrapper.get('input[data-testid="login-password"]').setValue('ann password');
    await wrapper.get('[data-testid="login-form"]').trigger('submit');
    await settle(10);
    // The code step, without an error: asking for the code is not a failure.
    expect(wrapper.find('input[data-testid="login-code"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="login-error"]').exists()).toBe(false);
    expect(wrapper.find('input[data-testid="login-password"]').exists()).toBe(false);
    expect(wrapper.get('h2').text()).toBe('Two-factor sign-in');
    expect(wrapper.get('[data-testid="code-hint"]').text()).toMatch(/recovery codes/);

    await wrapper.get('input[data-testid="login-code"]').setValue('000000');
    await wrapper.get('[data-testid="login-form"]').trigger('submit');
    await settle(10);
    expect(wrapper.get('[data-testid="login-error"]').text()).toMatch(/^code: is not correct/);

    await wrapper.get('input[data-testid="login-code"]').setValue(' 123456 ');
    await wrapper.get('[data-testid="login-form"]').trigger('submit');
    await settle(10);
    const logins = api.calls.filter((c) => c.path === '/login').map((c) => c.body);
    expect(logins).toEqual([
      { username: 'ann', password: 'ann password' },
      { username: 'ann', password: 'ann password', code: '000000' },
      { username: 'ann', password: 'ann password', code: '123456' },
    ]);
    await vi.waitFor(() => expect(ctx.router.currentRoute.value.fullPath).toBe('/logs'), {
      timeout: 10_000,
    });
    expect(useSessionStore(ctx.pinia).user).toEqual(ANN);
  });

  it('goes back to the password from the code step', async () => {
    const api = installFakeApi({
      'GET /status': () => ok({ setupRequired: false, version: '1.0.0', user: null }),
      'POST /login': () => needsCode('code: is required'),
    });
    const ctx = createContext('zh-CN');
    await ctx.router.push('/sign-in');
    const { wrapper } = mountWithApp(SignInPage, {}, ctx);
    // The status call first: the form shows a moment before it, and hides while it runs.
    await vi.waitFor(() => expect(api.calls.some((c) => c.path === '/status')).toBe(true));
    await settle(10);
    await wrapper.get('input[data-testid="login-username"]').setValue('ann');
    await wrapper.get('input[data-testid="login-password"]').setValue('x');
    await wrapper.get('[data-testid="login-form"]').trigger('submit');
    await settle(10);
    expect(wrapper.get('h2').text()).toBe('两步验证登录');
    await wrapper.get('[data-testid="login-back"]').trigger('click');
    await settle();
    expect(wrapper.find('input[data-testid="login-code"]').exists()).toBe(false);
    expect(wrapper.get<HTMLInputElement>('input[data-testid="login-username"]').element.value).toBe(
      'ann',
    );
  });
});

describe('InvitePage', () => {
  it('shows whose link it is, sets the password and lands signed in', async () => {
    const api = installFakeApi({
      'GET /invite': (req) =>
        req.query.get('token') === 'tok'
          ? ok({ username: 'newcomer', role: 'viewer' })
          : fail(404, 'gone'),
      'POST /invite': () =>
        ok({ user: { id: 9, username: 'newcomer', role: 'viewer', twoFactor: 'off' } }),
      'GET /status': () => ok({ setupRequired: false, version: '1.0.0', user: null }),
    });
    const ctx = createContext('en');
    await ctx.router.push('/invite?token=tok');
    const { wrapper } = mountWithApp(InvitePage, {}, ctx);
    await vi.waitFor(() => wrapper.get('[data-testid="invite-form"]'));
    expect(wrapper.get('[data-testid="invite-for"]').text()).toBe(
      'You were invited to Herald as newcomer (viewer). Choose a password to sign in.',
    );
    await wrapper.get('input[data-testid="invite-password"]').setValue('my password');
    await wrapper.get('input[data-testid="invite-password-confirm"]').setValue('my password');
    await wrapper.get('[data-testid="invite-form"]').trigger('submit');
    await vi.waitFor(() =>
      expect(api.calls.find((c) => c.method === 'POST' && c.path === '/invite')?.body).toEqual({
        token: 'tok',
        password: 'my password',
      }),
    );
    expect(useSessionStore(ctx.pinia).user?.username).toBe('newcomer');
    await vi.waitFor(() => expect(ctx.router.currentRoute.value.name).toBe('dashboard'), {
      timeout: 10_000,
    });
  });

  it('says an expired link is gone and to ask for a new one', async () => {
    installFakeApi({
      'GET /invite': () => fail(404, 'this invite link is unknown, was used, or has expired'),
    });
    const ctx = createContext('zh-CN');
    await ctx.router.push('/invite?token=old');
    const { wrapper } = mountWithApp(InvitePage, {}, ctx);
    await vi.waitFor(() => wrapper.get('[data-testid="invite-expired"]'));
    expect(wrapper.get('[data-testid="invite-expired"]').text()).toContain(
      '请向管理员索取新的链接',
    );
    expect(wrapper.find('[data-testid="invite-form"]').exists()).toBe(false);
  });

  it('offers a retry, not "expired", when Herald does not answer', async () => {
    installFakeApi({ 'GET /invite': () => fail(500, 'boom') });
    const ctx = createContext('en');
    await ctx.router.push('/invite?token=tok');
    const { wrapper } = mountWithApp(InvitePage, {}, ctx);
    await vi.waitFor(() => wrapper.get('[data-testid="page-retry"]'));
    expect(wrapper.find('[data-testid="invite-expired"]').exists()).toBe(false);
  });
});
