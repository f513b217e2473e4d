import { afterEach, describe, expect, it, vi } from 'vitest';

import LogDetailDrawer from '../../renderer/src/components/LogDetailDrawer.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const REASON =
  'PushPlus daily limit reached: 180 of 180 sends today; sends wait until 2026-11-22T16:00:00.000Z (midnight, China time)';

/** A delivery as GET /logs/:id answers it, waiting or failed. */
const delivery = (over: Record<string, unknown>) => ({
  id: 31,
  sendId: 9,
  instanceId: 1,
  channelId: 1,
  channelType: 'pushplus',
  contentType: 'text',
  recipient: null,
  status: 'queued',
  priority: null,
  repeats: 0,
  attempts: 0,
  nextAttemptAt: '2026-11-22T16:00:00.000Z',
  lastError: REASON,
  reply: null,
  sentAt: null,
  createdAt: '2026-11-22T08:00:00.000Z',
  channelName: 'wechat-me',
  attemptLog: [],
  ...over,
});

const detail = (deliveries: unknown[]) =>
  ok({
    id: 9,
    api: 'v2',
    taskId: null,
    templateId: 2,
    sourceName: 'disk',
    scheduleId: null,
    title: 'Disk full',
    status: 'pending',
    lastError: null,
    warnings: [],
    deliveryCount: deliveries.length,
    credential: 'token',
    sentCount: 0,
    failedCount: 0,
    priority: null,
    dedupKey: null,
    suppressedBy: null,
    suppressedCount: 0,
    createdAt: '2026-11-22T08:00:00.000Z',
    updatedAt: '2026-11-22T08:00:00.000Z',
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

describe('a deferred delivery in the send log', () => {
  it('shows when it goes and why it waits, as a note rather than an error', async () => {
    installFakeApi({
      'GET /logs/:id': () =>
        detail([
          delivery({}),
          delivery({ id: 32, status: 'failed', attempts: 1, lastError: 'code 903' }),
        ]),
    });
    const { wrapper } = mountWithApp(LogDetailDrawer, { props: { sendId: 9 } }, createContext());
    await settle();
    const [waiting, failed] = [...document.querySelectorAll('[data-testid="log-delivery"]')];
    expect(waiting.textContent).toContain('next attempt');
    const note = waiting.querySelector('.delivery__error');
    expect(note?.textContent).toContain(REASON);
    expect(note?.querySelector('.el-alert--info')).not.toBeNull();
    expect(failed.textContent).not.toContain('next attempt');
    expect(failed.querySelector('.delivery__error .el-alert--error')).not.toBeNull();
    wrapper.unmount();
  });
});
