import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { SessionInfo, Settings, TwoFactorStatus, User } from '../../contract';
import SecuritySettingsCard from '../../renderer/src/components/settings/SecuritySettingsCard.vue';
import AccountPage from '../../renderer/src/pages/AccountPage.vue';
import { useSessionStore } from '../../renderer/src/stores/session-store';
import { fail, installFakeApi, ok, type FakeHandler } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';
import { qrPath } from '../../renderer/src/lib/qr-path';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const CODES = Array.from({ length: 10 }, (_, i) => `aaaa-bbbb-cc${String(i).padStart(2, '0')}`);
const user = (twoFactor: User['twoFactor']): User => ({
  id: 7,
  username: 'ann',
  role: 'viewer',
  twoFactor,
});
const session = (id: string, current: boolean): SessionInfo => ({
  id: id.repeat(64),
  current,
  ip: current ? '10.0.0.1' : '10.0.0.2',
  userAgent: current
    ? 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
    : 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  createdAt: '2026-11-27T08:00:00.000Z',
  lastSeenAt: '2026-11-27T09:00:00.000Z',
  expiresAt: '2026-12-27T08:00:00.000Z',
});

let copied: string[] = [];
beforeEach(() => {
  copied = [];
  vi.stubGlobal('isSecureContext', true);
  Object.defineProperty(navigator, 'clipboard', {
    configurable: true,
    value: { writeText: (text: string) => Promise.resolve(void copied.push(text)) },
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

/** The Account page against a fake server whose two-factor state the handlers change. */
async function mountAccount(
  initial: Partial<TwoFactorStatus> = {},
  routes: Record<string, FakeHandler> = {},
  signedIn: User = user('off'),
) {
  const state: TwoFactorStatus = {
    enabled: false,
    required: false,
    recoveryCodesLeft: 0,
    pending: false,
    ...initial,
  };
  let me = signedIn;
  const api = installFakeApi({
    'GET /account/two-factor': () => ok({ ...state }),
    'POST /account/two-factor/setup': () => {
      state.pending = true;
      return ok({ secret: SECRET, otpauthUrl: `otpauth://totp/Herald:ann?secret=${SECRET}` });
    },
    'POST /account/two-factor/enable': (req) => {
      if ((req.body as { code: string }).code !== '123456') {
        return fail(400, 'code: is not correct; use the current code from your authenticator app');
      }
      Object.assign(state, { enabled: true, pending: false, recoveryCodesLeft: 10 });
      me = { ...me, twoFactor: 'on' };
      return ok({ recoveryCodes: CODES });
    },
    'POST /account/two-factor/disable': (req) => {
      if ((req.body as { password: string }).password !== 'ann password') {
        return fail(400, 'password: is not correct');
      }
      Object.assign(state, { enabled: false, recoveryCodesLeft: 0 });
      me = { ...me, twoFactor: 'off' };
      return ok(null);
    },
    'POST /account/two-factor/recovery-codes': () => ok({ recoveryCodes: CODES.slice().reverse() }),
    'GET /me': () => ok({ user: me }),
    'GET /account/sessions': () => ok({ items: [session('a', true), session('b', false)] }),
    'DELETE /account/sessions': () => ok({ revoked: 1 }),
    'DELETE /account/sessions/:id': () => ok({ revoked: 1 }),
    'POST /account/password': () => ok(null),
    ...routes,
  });
  const ctx = createContext('en');
  useSessionStore(ctx.pinia).user = signedIn;
  await ctx.router.push('/account');
  const { wrapper } = mountWithApp(AccountPage, {}, ctx);
  await settle(10);
  return { api, wrapper, ctx, state };
}

const click = async (el: Element | null) => {
  (el as HTMLElement).click();
  await settle(10);
};

describe('AccountPage: two-factor', () => {
  it('sets it up: the key for the app, a code confirms it, the recovery codes shown once', async () => {
    const { api, wrapper, ctx } = await mountAccount();
    expect(wrapper.get('[data-testid="two-factor-state"]').text()).toMatch(/^Off\./);
    await wrapper.get('[data-testid="two-factor-setup-start"]').trigger('click');
    await settle(10);
    expect(wrapper.get('[data-testid="two-factor-secret"]').text()).toBe(
      'JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP',
    );
    expect(wrapper.get('[data-testid="two-factor-link"]').attributes('href')).toBe(
      `otpauth://totp/Herald:ann?secret=${SECRET}`,
    );
    // The same link as a QR code, named for screen readers, drawn as qrPath draws it.
    const qr = wrapper.get('[data-testid="two-factor-qr"]');
    expect(qr.attributes('role')).toBe('img');
    expect(qr.attributes('aria-label')).toBe(
      'QR code of the setup link, for your authenticator app',
    );
    expect(qr.get('path').attributes('d')).toBe(
      qrPath(`otpauth://totp/Herald:ann?secret=${SECRET}`).d,
    );

    await wrapper.get('input[data-testid="two-factor-code"]').setValue('000000');
    await wrapper.get('[data-testid="two-factor-enable"]').trigger('submit');
    await settle(10);
    expect(wrapper.get('[data-testid="two-factor-error"]').text()).toMatch(/^code: is not correct/);
    expect(wrapper.get('[data-testid="two-factor-error"]').attributes('role')).toBe('alert');

    await wrapper.get('input[data-testid="two-factor-code"]').setValue('123456');
    await wrapper.get('form').trigger('submit');
    await settle(10);
    const enable = api.calls.filter((c) => c.path === '/account/two-factor/enable').at(-1);
    expect(enable?.body).toEqual({ code: '123456' });
    const shown = wrapper.findAll('[data-testid="recovery-code"]').map((li) => li.text());
    expect(shown).toEqual(CODES);
    // The signed-in user is read again: two-factor is on now.
    expect(useSessionStore(ctx.pinia).user?.twoFactor).toBe('on');

    await wrapper.get('[data-testid="recovery-copy"]').trigger('click');
    await settle();
    expect(copied).toEqual([CODES.join('\n')]);
    await wrapper.get('[data-testid="recovery-saved"]').trigger('click');
    await settle();
    expect(wrapper.find('[data-testid="recovery-codes"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="two-factor-state"]').text()).toBe(
      'On. Recovery codes left: 10.',
    );
  });

  it('makes a new set of recovery codes with a code, and turns off with the password', async () => {
    const { api, wrapper } = await mountAccount(
      { enabled: true, recoveryCodesLeft: 3 },
      {},
      user('on'),
    );
    expect(wrapper.get('[data-testid="two-factor-state"]').text()).toBe(
      'On. Recovery codes left: 3.',
    );
    await wrapper.get('input[data-testid="recovery-new-code"]').setValue(' 654321 ');
    await wrapper.get('[data-testid="recovery-new"]').trigger('submit');
    await settle(10);
    expect(api.calls.find((c) => c.path === '/account/two-factor/recovery-codes')?.body).toEqual({
      code: '654321',
    });
    expect(wrapper.findAll('[data-testid="recovery-code"]')).toHaveLength(10);
    await wrapper.get('[data-testid="recovery-saved"]').trigger('click');
    await settle();

    await wrapper.get('input[data-testid="two-factor-password"]').setValue('wrong');
    await wrapper.get('[data-testid="two-factor-disable"]').trigger('submit');
    await settle(10);
    expect(wrapper.get('[data-testid="two-factor-disable-error"]').text()).toBe(
      'password: is not correct',
    );
    expect(wrapper.get('[data-testid="two-factor-disable-error"]').attributes('role')).toBe(
      'alert',
    );
    await wrapper.get('input[data-testid="two-factor-password"]').setValue('ann password');
    await wrapper.get('[data-testid="two-factor-disable"]').trigger('submit');
    await settle(10);
    expect(wrapper.get('[data-testid="two-factor-state"]').text()).toMatch(/^Off\./);
  });

  it('offers no way to turn it off while the administrator requires it', async () => {
    const { wrapper } = await mountAccount(
      { enabled: true, required: true, recoveryCodesLeft: 10 },
      {},
      user('on'),
    );
    expect(wrapper.get('[data-testid="two-factor-stays"]').text()).toMatch(/stays on/);
    expect(wrapper.find('[data-testid="two-factor-disable"]').exists()).toBe(false);
  });
});

describe('AccountPage: sessions and password', () => {
  it('lists the sessions with this one marked; signs out one, and all others', async () => {
    const { api, wrapper } = await mountAccount();
    const current = wrapper.get('[data-testid="session-current"]');
    expect(current.text()).toContain('Firefox on Linux');
    expect(current.text()).toContain('This session');
    expect(current.text()).toContain('10.0.0.1');
    expect(current.find('[data-testid="session-sign-out"]').exists()).toBe(false);
    const other = wrapper.get('[data-testid="session"]');
    expect(other.text()).toContain('Safari on iOS');
    await other.get('[data-testid="session-sign-out"]').trigger('click');
    await settle(10);
    expect(
      api.calls.some(
        (c) => c.method === 'DELETE' && c.path === `/account/sessions/${'b'.repeat(64)}`,
      ),
    ).toBe(true);

    await wrapper.get('[data-testid="sessions-sign-out-others"]').trigger('click');
    await settle(10);
    await click(document.querySelector('.el-message-box__btns .el-button--primary'));
    expect(api.calls.some((c) => c.method === 'DELETE' && c.path === '/account/sessions')).toBe(
      true,
    );
  });

  it('changes the password with the current one', async () => {
    const { api, wrapper } = await mountAccount();
    await wrapper.get('input[data-testid="password-current"]').setValue('old password');
    await wrapper.get('input[data-testid="password-new"]').setValue('new password');
    await wrapper.get('input[data-testid="password-confirm"]').setValue('new password');
    await wrapper.get('[data-testid="password-save"]').trigger('submit');
    await vi.waitFor(() =>
      expect(api.calls.find((c) => c.path === '/account/password')?.body).toEqual({
        current: 'old password',
        new: 'new password',
      }),
    );
  });

  it('shows the server’s refusal of a password change under the fields, as an alert', async () => {
    const { wrapper } = await mountAccount(
      {},
      { 'POST /account/password': () => fail(400, 'current: is not correct') },
    );
    expect(wrapper.find('[data-testid="password-error"]').exists()).toBe(false);
    await wrapper.get('input[data-testid="password-current"]').setValue('wrong password');
    await wrapper.get('input[data-testid="password-new"]').setValue('new password');
    await wrapper.get('input[data-testid="password-confirm"]').setValue('new password');
    await wrapper.get('[data-testid="password-save"]').trigger('submit');
    await vi.waitFor(() =>
      expect(wrapper.find('[data-testid="password-error"]').exists()).toBe(true),
    );
    const error = wrapper.get('[data-testid="password-error"]');
    expect(error.text()).toBe('current: is not correct');
    expect(error.attributes('role')).toBe('alert');
    expect(error.get('.el-alert').classes()).toContain('el-alert--error');
    // The form keeps what was typed.
    expect(
      wrapper.get<HTMLInputElement>('input[data-testid="password-current"]').element.value,
    ).toBe('wrong password');
  });
});

describe('the requirement routes to Account', () => {
  it('sends a person who must enrol to Account, with the notice, from any page', async () => {
    installFakeApi({
      'GET /account/two-factor': () =>
        ok({ enabled: false, required: true, recoveryCodesLeft: 0, pending: false }),
      'GET /account/sessions': () => ok({ items: [] }),
    });
    const ctx = createContext('en');
    useSessionStore(ctx.pinia).user = user('required');
    await ctx.router.push('/logs');
    expect(ctx.router.currentRoute.value.name).toBe('account');
    await ctx.router.push('/settings');
    expect(ctx.router.currentRoute.value.name).toBe('account');
    const { wrapper } = mountWithApp(AccountPage, {}, ctx);
    await settle(10);
    expect(wrapper.get('[data-testid="account-must-enrol"]').text()).toMatch(
      /administrator requires two-factor/,
    );
    // Once enrolled, the other pages open.
    // A viewer once enrolled goes where a viewer may: the logs, not Settings.
    useSessionStore(ctx.pinia).user = user('on');
    await ctx.router.push('/logs');
    expect(ctx.router.currentRoute.value.name).toBe('logs');
  });
});

describe('Settings → Security', () => {
  it('turns the requirement on, and sends an administrator without two-factor to Account', async () => {
    let required = false;
    const api = installFakeApi({
      'GET /settings': () => ok({ requireTwoFactor: required, about: {} }),
      'PUT /settings': (req) => {
        required = (req.body as { requireTwoFactor: boolean }).requireTwoFactor;
        return ok({ requireTwoFactor: required, about: {} });
      },
      'GET /me': () => ok({ user: { ...user('off'), role: 'admin', twoFactor: 'required' } }),
    });
    const ctx = createContext('en');
    useSessionStore(ctx.pinia).user = { ...user('off'), role: 'admin' };
    await ctx.router.push('/settings');
    const { wrapper } = mountWithApp(
      SecuritySettingsCard,
      { props: { settings: { requireTwoFactor: false } as unknown as Settings } },
      ctx,
    );
    await wrapper.get('[data-testid="settings-require-two-factor"]').trigger('click');
    await wrapper.get('[data-testid="settings-security-save"]').trigger('submit');
    await settle(10);
    expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({ requireTwoFactor: true });
    await vi.waitFor(() => expect(ctx.router.currentRoute.value.name).toBe('account'), {
      timeout: 10_000,
    });
  });
});
