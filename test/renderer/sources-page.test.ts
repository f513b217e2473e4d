import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import ConsoleLayout from '../../renderer/src/layouts/ConsoleLayout.vue';
import { FakeEventSource } from './helpers/fake-event-source';
import { installFakeApi, ok, type FakeRequest } from './helpers/fake-api';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

const times = { createdAt: '2026-11-01T08:00:00.000Z', updatedAt: '2026-11-02T08:00:00.000Z' };
const task = { id: 3, name: 'nightly backup', instanceCount: 2, ...times };
const template = {
  id: 5,
  name: 'deploy done',
  description: 'after each release',
  enabled: true,
  placeholders: [{ key: 'version', label: 'Version', default: '' }],
  text: 'Deployed {{version}}',
  html: null,
  markdown: null,
  atMobiles: '',
  atUserIds: '',
  atAll: false,
  instanceCount: 0,
  hookSecret: '',
  ...times,
};
const page = (items: unknown[]) => ok({ items, total: items.length, page: 1, pageSize: 20 });

beforeEach(() => {
  vi.stubGlobal('EventSource', FakeEventSource);
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

/** The console signed in as an administrator, on `path`, with tasks and templates to list. */
async function consoleAt(path: string) {
  const { calls } = installFakeApi({
    'GET /messages': () => ok({ items: [], total: 0, page: 1, pageSize: 1, unreadCount: 0 }),
    'GET /tasks': () => page([task]),
    'GET /templates': () => page([template]),
    'PUT /templates/:id': (req: FakeRequest) => ok({ ...template, ...(req.body as object) }),
  });
  const ctx = signedInContext('admin');
  await ctx.router.push(path);
  const { wrapper } = mountWithApp(ConsoleLayout, {}, ctx);
  return { wrapper, calls, router: ctx.router };
}

describe('SourcesPage', () => {
  it('SourcesPage lists tasks with the legacy note, creation time and rename', async () => {
    const { wrapper } = await consoleAt('/tasks');
    await vi.waitFor(() =>
      expect(wrapper.find('[data-testid="task-table"]').text()).toContain('nightly backup'),
    );

    expect(wrapper.get('[data-testid="page-tasks"]').text()).toContain(
      'V1 tasks take the whole message',
    );
    expect(wrapper.find('[data-testid="task-rename"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="template-edit"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="task-table"]').text()).toContain('Created');
  });

  it('SourcesPage lists templates with description, placeholders, the enabled switch and edit', async () => {
    const { wrapper, calls } = await consoleAt('/templates');
    await vi.waitFor(() =>
      expect(wrapper.find('[data-testid="template-table"]').text()).toContain('deploy done'),
    );
    const table = wrapper.get('[data-testid="template-table"]');

    expect(table.text()).toContain('after each release');
    expect(table.text()).toContain('version');
    expect(wrapper.find('[data-testid="template-edit"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="task-rename"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="page-templates"]').text()).not.toContain('V1 tasks');

    await wrapper.get('[data-testid="template-enabled"]').trigger('click');
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    expect(calls.find((c) => c.method === 'PUT')).toMatchObject({
      path: '/templates/5',
      body: { enabled: false },
    });
  });

  it('going from tasks to templates starts the page afresh, with the other kind', async () => {
    const { wrapper, router, calls } = await consoleAt('/tasks');
    await vi.waitFor(() => expect(wrapper.find('[data-testid="task-table"]').exists()).toBe(true));
    await wrapper.get('input[data-testid="task-filter"]').setValue('night');

    await router.push('/templates');
    await vi.waitFor(() =>
      expect(wrapper.find('[data-testid="template-table"]').text()).toContain('deploy done'),
    );
    await settle();

    expect(wrapper.find('[data-testid="task-table"]').exists()).toBe(false);
    // The task filter was typed on the other page: the templates are listed unfiltered.
    const listed = calls.filter((c) => c.path === '/templates');
    expect(listed.at(-1)?.query.get('name')).toBeNull();
    expect(
      (wrapper.get('input[data-testid="template-filter"]').element as HTMLInputElement).value,
    ).toBe('');
  });
});
