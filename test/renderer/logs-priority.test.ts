import { afterEach, describe, expect, it, vi } from 'vitest';

import LogDetailDrawer from '../../renderer/src/components/LogDetailDrawer.vue';
import LogsPage from '../../renderer/src/pages/LogsPage.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

/** A send as GET /logs answers it (contract/console/logs.ts sendSchema). */
const send = (over: Record<string, unknown> = {}) => ({
  id: 7,
  api: 'v2',
  taskId: null,
  templateId: 2,
  sourceName: 'disk',
  scheduleId: null,
  title: 'Disk full',
  status: 'sent',
  lastError: null,
  warnings: [],
  deliveryCount: 1,
  credential: 'token',
  sentCount: 1,
  failedCount: 0,
  priority: null,
  dedupKey: null,
  suppressedBy: null,
  suppressedCount: 0,
  createdAt: '2026-11-26T08:00:00.000Z',
  updatedAt: '2026-11-26T08:00:00.000Z',
  ...over,
});

const page = (items: unknown[]) =>
  ok({
    items,
    total: items.length,
    page: 1,
    pageSize: 20,
    totalIsCapped: false,
    messageNestCredentials: false,
  });

/** A send's detail (GET /logs/:id) with its deliveries. */
const detail = (over: Record<string, unknown>, deliveries: unknown[]) =>
  ok({
    ...send(over),
    scheduleName: null,
    text: 'x',
    html: null,
    markdown: null,
    url: null,
    request: {},
    deliveries,
  });

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('priority and dedup in the send logs', () => {
  it('the list marks high and urgent sends, shows none for a send without one, and counts the suppressed', async () => {
    installFakeApi({
      'GET /logs': () =>
        page([
          send({ id: 9, priority: 5, dedupKey: 'disk', suppressedCount: 3 }),
          send({ id: 8, priority: 4 }),
          send({ id: 7 }),
          send({
            id: 6,
            status: 'suppressed',
            suppressedBy: 9,
            dedupKey: 'disk',
            deliveryCount: 0,
          }),
        ]),
      'GET /tasks': () => page([]),
      'GET /templates': () => page([]),
    });
    const { wrapper } = mountWithApp(LogsPage);
    await settle();
    const rows = wrapper.findAll('.el-table__body-wrapper tr');
    expect(rows).toHaveLength(4);
    expect(rows[0].get('[data-testid="priority-tag"]').text()).toBe('Urgent');
    expect(rows[0].get('[data-testid="log-suppressed-count"]').text()).toBe('3 suppressed');
    expect(rows[1].get('[data-testid="priority-tag"]').text()).toBe('High');
    expect(rows[2].find('[data-testid="priority-tag"]').exists()).toBe(false);
    expect(rows[3].text()).toContain('Suppressed');
    wrapper.unmount();
  });

  it('the detail names the dedup key, links a suppressed send to the first, and tells a delivery its repeats', async () => {
    installFakeApi({
      'GET /logs/:id': (req) =>
        req.path === '/logs/6'
          ? detail(
              {
                id: 6,
                status: 'suppressed',
                suppressedBy: 9,
                dedupKey: 'disk db-1',
                priority: 4,
              },
              [],
            )
          : detail({ id: 9, dedupKey: 'disk db-1', suppressedCount: 2 }, [
              {
                id: 30,
                sendId: 9,
                instanceId: 1,
                channelId: 1,
                channelType: 'hosted',
                contentType: 'text',
                recipient: null,
                status: 'sent',
                priority: null,
                repeats: 5,
                attempts: 1,
                nextAttemptAt: null,
                lastError: null,
                reply: 'stored',
                sentAt: '2026-11-26T08:00:00.000Z',
                createdAt: '2026-11-26T08:00:00.000Z',
                channelName: 'inbox',
                attemptLog: [],
              },
            ]),
    });
    const suppressed = mountWithApp(LogDetailDrawer, { props: { sendId: 6 } }, createContext());
    await settle();
    const dedup = document.querySelector('[data-testid="log-dedup"]');
    expect(dedup?.textContent).toContain('disk db-1');
    expect(dedup?.querySelector('a')?.getAttribute('href')).toBe('/logs/9');
    expect(document.querySelector('[data-testid="log-priority"]')?.textContent).toContain('High');
    suppressed.wrapper.unmount();
    document.body.innerHTML = '';

    const first = mountWithApp(LogDetailDrawer, { props: { sendId: 9 } }, createContext('zh-CN'));
    await settle();
    expect(document.querySelector('[data-testid="log-dedup"]')?.textContent).toContain(
      '已抑制 2 条',
    );
    expect(document.querySelector('[data-testid="log-priority"]')?.textContent).toContain('未指定');
    expect(document.querySelector('[data-testid="log-delivery"]')?.textContent).toContain(
      '此前抑制 5 条',
    );
    first.wrapper.unmount();
  });
});
