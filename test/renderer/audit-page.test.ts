import { ElDatePicker, ElOption, ElSelect } from 'element-plus';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { AUDIT_ACTIONS } from '../../contract/audit-actions';
import AuditPage from '../../renderer/src/pages/AuditPage.vue';
import { installFakeApi, ok, type FakeRequest } from './helpers/fake-api';
import { mountWithApp, settle } from './helpers/mount';

const entry = (over: Record<string, unknown> = {}) => ({
  id: 1,
  at: '2026-11-27T10:00:00.000Z',
  userId: 1,
  username: 'admin',
  ip: '10.0.0.5',
  userAgent: 'Mozilla/5.0',
  action: 'channel.update',
  targetType: 'channel',
  targetId: '7',
  targetName: 'robot',
  changes: [
    { field: 'name', before: 'robot', after: 'robot 2' },
    { field: 'config.secret', changed: true },
  ],
  ...over,
});

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

/** The page over a fake API that answers one entry and keeps every query it was sent. */
async function mountRecording() {
  const requests: FakeRequest[] = [];
  installFakeApi({
    'GET /audit': (req) => {
      requests.push(req);
      return ok({ items: [entry()], total: 1, page: 1, pageSize: 20 });
    },
  });
  const { wrapper } = mountWithApp(AuditPage);
  await settle();
  return { requests, wrapper };
}

describe('AuditPage', () => {
  it('shows who did what to which target, each change as before → after and secrets only as changed', async () => {
    installFakeApi({
      'GET /audit': () =>
        ok({
          items: [
            entry(),
            entry({
              id: 2,
              userId: null,
              username: 'mallory',
              action: 'auth.sign-in-failed',
              targetType: 'user',
              targetId: null,
              targetName: 'mallory',
              changes: [],
            }),
          ],
          total: 2,
          page: 1,
          pageSize: 20,
        }),
    });
    const { wrapper } = mountWithApp(AuditPage);
    await settle();
    const rows = wrapper.findAll('.el-table__body-wrapper tr');
    expect(rows).toHaveLength(2);
    expect(rows[0].get('[data-testid="audit-who"]').text()).toBe('admin');
    expect(rows[0].get('[data-testid="audit-action-cell"]').text()).toBe('channel.update');
    expect(rows[0].get('[data-testid="audit-target"]').text()).toContain('channel #7');
    const changes = rows[0].findAll('[data-testid="audit-changes"] li').map((li) => li.text());
    expect(changes).toEqual(['name: robot → robot 2', 'config.secret: changed']);
    expect(rows[1].get('[data-testid="audit-action-cell"]').text()).toBe('auth.sign-in-failed');
  });

  it('sends the filters as the query', async () => {
    const { requests, wrapper } = await mountRecording();
    await wrapper.get('input[data-testid="audit-user"]').setValue('admin');
    await wrapper.get('input[data-testid="audit-search"]').setValue('robot');
    await vi.waitFor(() => {
      const last = requests.at(-1)!;
      expect(last.query.get('user')).toBe('admin');
      expect(last.query.get('q')).toBe('robot');
    });
    wrapper
      .getComponent(ElDatePicker)
      .vm.$emit('update:modelValue', [new Date(2026, 10, 1), new Date(2026, 10, 2)]);
    await vi.waitFor(() => {
      const last = requests.at(-1)!;
      expect(last.query.get('from')).toBe(new Date(2026, 10, 1).toISOString());
      expect(last.query.get('to')).toBe(new Date(2026, 10, 2, 23, 59, 59, 999).toISOString());
      expect(last.query.get('user')).toBe('admin');
    });
  });

  it('offers every action the log records, an invite’s acceptance among them, and asks for the one chosen', async () => {
    const { requests, wrapper } = await mountRecording();
    const select = wrapper
      .findAllComponents(ElSelect)
      .find((s) => s.attributes('data-testid') === 'audit-action')!;
    const offered = select.findAllComponents(ElOption).map((o) => o.props('value'));
    expect(offered).toEqual([...AUDIT_ACTIONS]);
    expect(offered).toEqual(
      expect.arrayContaining(['user.accept-invite', 'user.invite', 'backup.schedule-update']),
    );
    select.vm.$emit('update:modelValue', 'user.accept-invite');
    await vi.waitFor(() => expect(requests.at(-1)!.query.get('action')).toBe('user.accept-invite'));
  });
});
