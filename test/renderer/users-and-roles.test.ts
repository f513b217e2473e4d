import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { UserRole } from '../../contract';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../renderer/src/lib/new-password';
import ConsoleLayout from '../../renderer/src/layouts/ConsoleLayout.vue';
import UsersPage from '../../renderer/src/pages/UsersPage.vue';
import { FakeEventSource } from './helpers/fake-event-source';
import { fail, installFakeApi, ok, type FakeRequest } from './helpers/fake-api';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

const account = (over: Record<string, unknown> = {}) => ({
  id: 2,
  username: 'dana',
  role: 'editor',
  disabled: false,
  twoFactor: false,
  invited: false,
  inviteExpiresAt: null,
  createdAt: '2026-11-20T08:00:00.000Z',
  ...over,
});

/** Types into a dialog's input (dialogs render outside the page's wrapper). */
function type(testid: string, value: string) {
  const input = document.querySelector<HTMLInputElement>(`input[data-testid="${testid}"]`)!;
  input.value = value;
  input.dispatchEvent(new Event('input'));
}
const click = (testid: string) =>
  document.querySelector<HTMLElement>(`[data-testid="${testid}"]`)!.click();
/** The messages under a dialog's fields; Element Plus shows a field's state after a debounce. */
const expectFieldErrors = (messages: string[]) =>
  vi.waitFor(() =>
    expect(
      [...document.querySelectorAll('.el-form-item__error')].map((e) => e.textContent?.trim()),
    ).toEqual(messages),
  );

const signedInAs = (role: UserRole) => signedInContext(role);

beforeEach(() => {
  vi.stubGlobal('EventSource', FakeEventSource);
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('the console by role', () => {
  const navOf = async (role: UserRole) => {
    installFakeApi({
      'GET /messages': () => ok({ items: [], total: 0, page: 1, pageSize: 1, unreadCount: 0 }),
    });
    const { wrapper } = mountWithApp(
      ConsoleLayout,
      { global: { stubs: { 'router-view': true } } },
      signedInAs(role),
    );
    await settle();
    const items = wrapper
      .findAll('[data-testid^="nav-"]')
      .map((a) => a.attributes('data-testid'))
      .filter((id) => id !== 'nav-account' && id !== 'nav-unread-count');
    return { items, role: wrapper.get('[data-testid="current-role"]').text() };
  };

  it('shows each role only the pages it can use, and names the role', async () => {
    expect(await navOf('viewer')).toEqual({
      items: ['nav-dashboard', 'nav-logs', 'nav-messages'],
      role: 'Viewer',
    });
    const editor = await navOf('editor');
    expect(editor.items).toContain('nav-channels');
    expect(editor.items).not.toContain('nav-settings');
    expect(editor.items).not.toContain('nav-users');
    const admin = await navOf('admin');
    expect(admin.items).toContain('nav-users');
    expect(admin.items).toContain('nav-settings');
  });

  it('sends a role away from a page it cannot use, to the dashboard', async () => {
    installFakeApi({});
    const ctx = signedInAs('viewer');
    await ctx.router.push('/channels');
    expect(ctx.router.currentRoute.value.name).toBe('dashboard');
    await ctx.router.push('/logs');
    expect(ctx.router.currentRoute.value.name).toBe('logs');
    const editor = signedInAs('editor');
    await editor.router.push('/users');
    expect(editor.router.currentRoute.value.name).toBe('dashboard');
  });
});

describe('UsersPage', () => {
  it('lists accounts with their role and state', async () => {
    installFakeApi({
      'GET /users': () =>
        ok({
          items: [
            account({ id: 1, username: 'the-admin', role: 'admin' }),
            account(),
            account({ id: 3, username: 'olu', role: 'viewer', invited: true }),
            account({ id: 4, username: 'gone', disabled: true }),
          ],
          total: 4,
          page: 1,
          pageSize: 4,
        }),
    });
    const { wrapper } = mountWithApp(UsersPage, {}, signedInAs('admin'));
    await settle();
    const rows = wrapper.findAll('.el-table__body-wrapper tr');
    expect(rows).toHaveLength(4);
    expect(rows[0].text()).toContain('(you)');
    expect(wrapper.get('[data-testid="user-role-tag-dana"]').text()).toBe('Editor');
    expect(rows[2].find('[data-testid="user-state-invited"]').exists()).toBe(true);
    expect(rows[2].find('[data-testid="user-invite"]').exists()).toBe(true);
    expect(rows[3].find('[data-testid="user-state-disabled"]').exists()).toBe(true);
  });

  it('creates an invited account and shows its link once', async () => {
    const created: unknown[] = [];
    installFakeApi({
      'GET /users': () => ok({ items: [], total: 0, page: 1, pageSize: 0 }),
      'POST /users': (req: FakeRequest) => {
        created.push(req.body);
        return ok({
          ...account({ id: 5, username: 'kim', role: 'viewer', invited: true }),
          inviteUrl: 'http://herald.test/invite?token=abc',
        });
      },
    });
    const { wrapper } = mountWithApp(UsersPage, {}, signedInAs('admin'));
    await settle();
    await wrapper.get('[data-testid="user-create"]').trigger('click');
    await settle();
    type('user-username', 'kim');
    click('user-save');
    await settle();
    expect(created).toEqual([{ username: 'kim', role: 'viewer' }]);
    const link = document.querySelector<HTMLInputElement>('input[data-testid="invite-link"]');
    expect(link?.value).toBe('http://herald.test/invite?token=abc');
  });

  it('shows the server refusal of the last administrator inside the dialog', async () => {
    installFakeApi({
      'GET /users': () =>
        ok({
          items: [account({ id: 1, username: 'the-admin', role: 'admin' })],
          total: 1,
          page: 1,
          pageSize: 1,
        }),
      'PATCH /users/:id': () =>
        fail(409, 'the last administrator cannot be demoted; make another account admin first'),
    });
    const { wrapper } = mountWithApp(UsersPage, {}, signedInAs('admin'));
    await settle();
    await wrapper.get('[data-testid="user-edit"]').trigger('click');
    await settle();
    click('user-role-viewer');
    await settle();
    click('user-save');
    await settle();
    expect(document.querySelector('[data-testid="user-error"]')?.textContent).toContain(
      'the last administrator cannot be demoted',
    );
  });

  it('holds a password it sets to the rule of every new password: its length, its message', async () => {
    const created: unknown[] = [];
    const { calls } = installFakeApi({
      'GET /users': () => ok({ items: [], total: 0, page: 1, pageSize: 0 }),
      'POST /users': (req: FakeRequest) => {
        created.push(req.body);
        return ok({ ...account({ id: 6, username: 'lee' }), inviteUrl: null });
      },
    });
    const { wrapper } = mountWithApp(UsersPage, {}, signedInAs('admin'));
    await settle();
    await wrapper.get('[data-testid="user-create"]').trigger('click');
    await settle();
    type('user-username', 'lee');
    click('user-how-password');
    await settle();
    const passwordInput = document.querySelector<HTMLInputElement>(
      'input[data-testid="user-password"]',
    )!;
    expect(passwordInput.maxLength).toBe(PASSWORD_MAX_LENGTH);

    // Empty: asked for, as "with a password" needs one.
    click('user-save');
    await expectFieldErrors(['Enter a password']);

    type('user-password', 'x'.repeat(PASSWORD_MIN_LENGTH - 1));
    click('user-save');
    // Next to the field, in NewPasswordFields' words, with the limits of lib/new-password.ts.
    await expectFieldErrors([`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`]);
    await settle();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);

    type('user-password', 'x'.repeat(PASSWORD_MIN_LENGTH));
    click('user-save');
    await settle();
    expect(created).toEqual([
      { username: 'lee', role: 'viewer', password: 'x'.repeat(PASSWORD_MIN_LENGTH) },
    ]);
  });

  it('keeps an edited account’s password when the field is left empty, and checks a new one', async () => {
    const patches: unknown[] = [];
    installFakeApi({
      'GET /users': () => ok({ items: [account()], total: 1, page: 1, pageSize: 1 }),
      'PATCH /users/:id': (req: FakeRequest) => {
        patches.push(req.body);
        return ok(account({ role: 'viewer' }));
      },
    });
    const { wrapper } = mountWithApp(UsersPage, {}, signedInAs('admin'));
    await settle();
    await wrapper.get('[data-testid="user-edit"]').trigger('click');
    await settle();

    type('user-password', 'short');
    click('user-save');
    await expectFieldErrors([`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`]);
    expect(patches).toEqual([]);

    type('user-password', '');
    click('user-role-viewer');
    await settle();
    click('user-save');
    await settle();
    expect(patches).toEqual([{ role: 'viewer' }]);
  });

  it('resets a teammate’s two-factor after asking', async () => {
    const patches: unknown[] = [];
    installFakeApi({
      'GET /users': () =>
        ok({ items: [account({ twoFactor: true })], total: 1, page: 1, pageSize: 1 }),
      'PATCH /users/:id': (req: FakeRequest) => {
        patches.push({ path: req.path, body: req.body });
        return ok(account({ twoFactor: false }));
      },
    });
    const { wrapper } = mountWithApp(UsersPage, {}, signedInAs('admin'));
    await settle();
    expect(wrapper.get('[data-testid="user-two-factor-dana"]').text()).toBe('2FA');
    await wrapper.get('[data-testid="user-reset-two-factor"]').trigger('click');
    await settle();
    expect(patches).toEqual([]);
    document
      .querySelector<HTMLElement>(
        '.el-message-box__btns .el-button--primary, .el-message-box__btns .el-button--danger',
      )!
      .click();
    await settle(10);
    expect(patches).toEqual([{ path: '/users/2', body: { resetTwoFactor: true } }]);
  });
});
