import { afterEach, describe, expect, it, vi } from 'vitest';

import SignInPage from '../../renderer/src/pages/SignInPage.vue';
import { fail, installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

async function mountSetup(
  path: string,
  setupAnswer = ok({ user: { id: 1, username: 'owner', role: 'admin' } }),
) {
  const api = installFakeApi({
    'GET /status': () => ok({ setupRequired: true, version: '1.0.0', user: null }),
    'POST /setup': () => setupAnswer,
  });
  const ctx = createContext('en');
  await ctx.router.push(path);
  const { wrapper } = mountWithApp(SignInPage, {}, ctx);
  await vi.waitFor(() => wrapper.get('[data-testid="setup-form"]'));
  return { api, wrapper, ctx };
}

async function fillAndSubmit(wrapper: Awaited<ReturnType<typeof mountSetup>>['wrapper']) {
  await wrapper.get('[data-testid="login-username"]').setValue('owner');
  await wrapper.get('[data-testid="login-password"]').setValue('owner-password');
  await wrapper.get('[data-testid="login-password-confirm"]').setValue('owner-password');
  await wrapper.get('[data-testid="setup-form"]').trigger('submit');
  await settle(10);
}

describe('SignInPage in setup mode', () => {
  it('SignInPage fills the setup code from ?code= and sends it with the new administrator', async () => {
    const { api, wrapper, ctx } = await mountSetup('/sign-in?code=K7XQM-4RTPW');
    const input = wrapper.get<HTMLInputElement>('[data-testid="setup-code"]');
    expect(input.element.value).toBe('K7XQM-4RTPW');
    expect(wrapper.get('[data-testid="setup-code-hint"]').text()).toMatch(/terminal/);

    await fillAndSubmit(wrapper);

    const setup = api.calls.find((c) => c.method === 'POST' && c.path === '/setup');
    expect(setup?.body).toEqual({
      username: 'owner',
      password: 'owner-password',
      setupCode: 'K7XQM-4RTPW',
    });
    // Signed in, the page moves on to the console, whose pages load lazily: the first import of
    // the dashboard (ECharts) can take seconds on a busy machine.
    await vi.waitFor(() => expect(ctx.router.currentRoute.value.name).toBe('dashboard'), {
      timeout: 10_000,
    });
  });

  it('SignInPage shows the server refusing a wrong setup code', async () => {
    const { api, wrapper } = await mountSetup(
      '/sign-in',
      fail(
        403,
        'setupCode: is not correct; use the code Herald printed in its terminal (or log) when it started',
      ),
    );
    expect(wrapper.get<HTMLInputElement>('[data-testid="setup-code"]').element.value).toBe('');
    await wrapper.get('[data-testid="setup-code"]').setValue('wrong-code');
    await fillAndSubmit(wrapper);
    expect(api.calls.find((c) => c.path === '/setup')?.body).toMatchObject({
      setupCode: 'wrong-code',
    });
    await vi.waitFor(() =>
      expect(wrapper.get('[data-testid="login-error"]').text()).toMatch(
        /^setupCode: is not correct/,
      ),
    );
  });
});

describe('SignInPage password rules', () => {
  it('setup refuses a repeated password that differs before asking the server', async () => {
    const { api, wrapper } = await mountSetup('/sign-in?code=K7XQM-4RTPW');
    await wrapper.get('[data-testid="login-username"]').setValue('owner');
    await wrapper.get('[data-testid="login-password"]').setValue('owner-password');
    await wrapper.get('[data-testid="login-password-confirm"]').setValue('owner-passwort');
    await wrapper.get('[data-testid="setup-form"]').trigger('submit');
    await vi.waitFor(() =>
      expect(wrapper.get('.el-form-item__error').text()).toBe('The passwords do not match'),
    );
    expect(api.calls.filter((c) => c.path === '/setup')).toEqual([]);
  });

  it('signing in takes a password shorter than a new one must be, with no repetition', async () => {
    const api = installFakeApi({
      'GET /status': () => ok({ setupRequired: false, version: '1.0.0', user: null }),
      'POST /login': () => fail(401, 'wrong username or password'),
    });
    const ctx = createContext('en');
    await ctx.router.push('/sign-in');
    const { wrapper } = mountWithApp(SignInPage, {}, ctx);
    // The form shows a moment before the status call, and hides while it runs.
    await vi.waitFor(() => expect(api.calls.some((c) => c.path === '/status')).toBe(true));
    await settle(10);
    expect(wrapper.find('[data-testid="login-password-confirm"]').exists()).toBe(false);
    expect(
      wrapper.get<HTMLInputElement>('input[data-testid="login-password"]').element.autocomplete,
    ).toBe('current-password');
    await wrapper.get('[data-testid="login-username"]').setValue('ann');
    await wrapper.get('[data-testid="login-password"]').setValue('short');
    await wrapper.get('[data-testid="login-form"]').trigger('submit');
    await vi.waitFor(() =>
      expect(api.calls.find((c) => c.path === '/login')?.body).toEqual({
        username: 'ann',
        password: 'short',
      }),
    );
  });
});
