import { ElDatePicker, ElOption, ElSelect } from 'element-plus';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { AUDIT_ACTIONS } from '../../contract/audit-actions';
import AuditPage from '../../renderer/src/pages/AuditPage.vue';
import { installFakeApi, ok, type FakeRequest } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

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
  names: {},
  ...over,
});

/** Text as a browser lays it out: runs of white space read as one space. */
const spaced = (text: string) => text.replace(/\s+/g, ' ').trim();

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
  it('says who did what in a sentence with names, each change as before → after and secrets only as changed', async () => {
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
    const sentence = rows[0].get('[data-testid="audit-sentence"]');
    expect(spaced(sentence.text())).toBe('admin changed the channel robot');
    expect(sentence.attributes('title')).toBe('channel.update');
    expect(rows[0].get('[data-testid="audit-who"]').text()).toBe('admin');
    expect(rows[0].get('[data-testid="audit-target"]').text()).toBe('robot');
    expect(rows[0].text()).toContain('from 10.0.0.5');
    const changes = rows[0].findAll('[data-testid="audit-changes"] li').map((li) => li.text());
    expect(changes).toEqual(['name: robot → robot 2', 'config.secret: changed']);
    expect(spaced(rows[1].get('[data-testid="audit-sentence"]').text())).toBe(
      'A sign-in as mallory failed',
    );
    expect(rows[1].find('[data-testid="audit-changes"]').exists()).toBe(false);
  });

  it('names the template and channel an instance links, as the entry kept them, and collapses what a create made', async () => {
    installFakeApi({
      'GET /audit': () =>
        ok({
          items: [
            entry({
              username: 'bob',
              action: 'instance.create',
              targetType: 'instance',
              targetId: '2',
              targetName: 'Ops',
              changes: [
                { field: 'taskId', before: null, after: null },
                { field: 'templateId', before: null, after: 1 },
                { field: 'channelId', before: null, after: 2 },
                { field: 'contentType', before: null, after: 'markdown' },
                { field: 'enabled', before: null, after: true },
                { field: 'recipient', before: null, after: '' },
                { field: 'atMobiles', before: null, after: [] },
              ],
              names: { 'template:1': 'Nightly', 'channel:2': 'Ops' },
            }),
            entry({
              id: 3,
              username: 'alice',
              userId: 2,
              action: 'user.accept-invite',
              targetType: 'user',
              targetId: '2',
              targetName: 'alice',
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
    expect(spaced(rows[0].get('[data-testid="audit-sentence"]').text())).toBe(
      'bob linked template Nightly to channel Ops',
    );
    const details = rows[0].get<HTMLDetailsElement>('[data-testid="audit-details"]');
    expect(details.element.open).toBe(false);
    expect(spaced(details.get('summary').text())).toBe('What was created (4)');
    expect(details.findAll('li').map((li) => li.text())).toEqual([
      'template: Nightly',
      'channel: Ops',
      'contentType: markdown',
      'enabled: yes',
    ]);
    expect(spaced(rows[1].get('[data-testid="audit-sentence"]').text())).toBe(
      'alice accepted their invite',
    );
  });

  it('reads the same sentences in Chinese', async () => {
    installFakeApi({
      'GET /audit': () =>
        ok({
          items: [
            entry({
              username: 'bob',
              action: 'instance.create',
              targetName: 'Ops',
              changes: [{ field: 'channelId', before: null, after: 2 }],
              names: { 'template:1': 'Nightly', 'channel:2': 'Ops' },
            }),
            entry({ id: 3, username: 'alice', action: 'user.accept-invite', changes: [] }),
            entry({
              id: 4,
              userId: null,
              username: 'cli',
              action: 'backup.create',
              targetName: 'a.herald-backup',
              changes: [],
            }),
          ],
          total: 3,
          page: 1,
          pageSize: 20,
        }),
    });
    const { wrapper } = mountWithApp(AuditPage, {}, createContext('zh-CN'));
    await settle();
    const sentences = wrapper
      .findAll('[data-testid="audit-sentence"]')
      .map((s) => spaced(s.text()));
    expect(sentences).toEqual([
      'bob 将模板 Nightly 关联到渠道 Ops',
      'alice 接受了邀请',
      '命令行 生成了备份 a.herald-backup',
    ]);
    expect(wrapper.get('[data-testid="audit-details"] summary').text()).toContain(
      '创建的内容（1）',
    );
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
