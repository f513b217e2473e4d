import { afterEach, describe, expect, it } from 'vitest';

import ChannelsPage from '../../renderer/src/pages/ChannelsPage.vue';
import UsersPage from '../../renderer/src/pages/UsersPage.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

afterEach(() => {
  document.body.innerHTML = '';
});

const channel = (id: number, name: string, usedBy: unknown[]) => ({
  id,
  name,
  description: '',
  type: 'webhook',
  config: { url: 'https://example.com/hook' },
  usedBy,
  createdAt: '2026-11-20T08:00:00.000Z',
  updatedAt: '2026-11-20T08:00:00.000Z',
});

const account = (id: number, username: string, role: string, disabled = false) => ({
  id,
  username,
  role,
  disabled,
  twoFactor: false,
  invited: false,
  inviteExpiresAt: null,
  createdAt: '2026-11-20T08:00:00.000Z',
});

/** Each row's delete button, by the row's text: whether it is disabled, and why. */
function deletes(testid: string, rowText: string[]) {
  const rows = [...document.querySelectorAll('.el-table__body-wrapper tr.el-table__row')];
  return Object.fromEntries(
    rowText.map((text) => {
      const row = rows.find((r) => r.textContent?.includes(text));
      const button = row?.querySelector<HTMLButtonElement>(`[data-testid="${testid}"]`);
      const reason = row?.querySelector('[data-testid="disabled-reason"]');
      return [
        text,
        { disabled: button?.disabled, reason: reason?.getAttribute('aria-label') ?? null },
      ];
    }),
  );
}

describe('deleting what cannot be deleted yet', () => {
  it('a channel in use cannot be deleted, and says which sources use it', async () => {
    installFakeApi({
      'GET /channel-types': () => ok([]),
      'GET /channels': () =>
        ok({
          items: [
            channel(1, 'Ops hook', [
              { kind: 'task', id: 1, name: 'Backups' },
              { kind: 'template', id: 4, name: 'Disk alert' },
            ]),
            channel(2, 'Spare hook', []),
          ],
          total: 2,
          page: 1,
          pageSize: 2,
        }),
    });
    const { wrapper } = mountWithApp(ChannelsPage, {}, signedInContext('editor'));
    await settle(10);
    expect(deletes('channel-delete', ['Ops hook', 'Spare hook'])).toEqual({
      'Ops hook': {
        disabled: true,
        reason:
          'Used by task “Backups”, template “Disk alert”: remove those instances before deleting the channel.',
      },
      'Spare hook': { disabled: false, reason: null },
    });
    wrapper.unmount();
  });

  it('the last enabled administrator cannot be deleted; one of two can', async () => {
    installFakeApi({
      'GET /users': () =>
        ok({
          items: [
            account(1, 'the-admin', 'admin'),
            account(2, 'dana', 'editor'),
            account(3, 'old-admin', 'admin', true),
          ],
        }),
    });
    const alone = mountWithApp(UsersPage, {}, signedInContext('admin'));
    await settle(10);
    expect(deletes('user-delete', ['the-admin', 'dana', 'old-admin'])).toEqual({
      'the-admin': {
        disabled: true,
        reason:
          'The last administrator cannot be deleted. Make another account an administrator first.',
      },
      dana: { disabled: false, reason: null },
      'old-admin': { disabled: false, reason: null },
    });
    alone.wrapper.unmount();
    document.body.innerHTML = '';

    installFakeApi({
      'GET /users': () =>
        ok({ items: [account(1, 'the-admin', 'admin'), account(4, 'sam', 'admin')] }),
    });
    const two = mountWithApp(UsersPage, {}, signedInContext('admin'));
    await settle(10);
    expect(deletes('user-delete', ['the-admin', 'sam'])).toEqual({
      'the-admin': { disabled: false, reason: null },
      sam: { disabled: false, reason: null },
    });
    two.wrapper.unmount();
  });
});
