// @vitest-environment jsdom
// DOMPurify (MessageContent) needs a DOM whose tree walk it supports (see render-content.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { HostedMessage } from '@contract';

import MessageDrawer from '../../renderer/src/components/MessageDrawer.vue';
import MessagesPage from '../../renderer/src/pages/MessagesPage.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { hostedMessage } from './helpers/hosted-message';
import { mountWithApp, settle } from './helpers/mount';

const message = (id: number, priority: number | null) => hostedMessage(id, { priority });

const page = (items: HostedMessage[]) => ({
  items,
  total: items.length,
  page: 1,
  pageSize: 20,
  totalIsCapped: false,
  unreadCount: items.length,
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  document.body.innerHTML = '';
});

/** The mark of each row, by title: the tag's text and the priority it carries. */
function marks(): Record<string, string | null> {
  const rows = [...document.querySelectorAll('[data-testid="messages-table"] .el-table__row')];
  return Object.fromEntries(
    rows.map((row) => {
      const tag = row.querySelector('[data-testid="priority-tag"]');
      const title = row.querySelector('[data-testid="message-row-title"]')?.textContent ?? '';
      return [
        title,
        tag ? `${tag.textContent?.trim()} (${tag.getAttribute('data-priority')})` : null,
      ];
    }),
  );
}

describe('hosted messages: priority mark and order', () => {
  it('marks priority 5 urgent and 4 high, and nothing else', async () => {
    installFakeApi({
      'GET /messages': () =>
        ok(page([message(5, 5), message(4, 4), message(3, 3), message(2, 1), message(1, null)])),
    });
    const { wrapper } = mountWithApp(MessagesPage);
    await settle(10);
    expect(marks()).toEqual({
      'Message 5': 'Urgent (5)',
      'Message 4': 'High (4)',
      'Message 3': null,
      'Message 2': null,
      'Message 1': null,
    });
    wrapper.unmount();
  });

  it('"Priority first" asks the server for sort=priority, and unticking asks for newest again', async () => {
    const api = installFakeApi({ 'GET /messages': () => ok(page([message(1, 4)])) });
    const { wrapper } = mountWithApp(MessagesPage);
    await settle(10);
    expect(api.calls.at(-1)?.query.get('sort')).toBeNull();
    const box = () =>
      document.querySelector('[data-testid="messages-priority-first"] input') as HTMLInputElement;
    box().click();
    await vi.waitFor(() => expect(api.calls.at(-1)?.query.get('sort')).toBe('priority'));
    box().click();
    await vi.waitFor(() => expect(api.calls.at(-1)?.query.get('sort')).toBeNull());
    wrapper.unmount();
  });

  it('the message drawer shows the mark too', async () => {
    installFakeApi({
      'GET /messages/:id': () =>
        ok({ ...message(7, 5), read: true, safeHtml: '<pre class="herald-text">body</pre>' }),
    });
    const { wrapper } = mountWithApp(MessageDrawer, { props: { messageId: 7 } });
    await settle(10);
    expect(document.querySelector('[data-testid="priority-tag"]')?.textContent?.trim()).toBe(
      'Urgent',
    );
    wrapper.unmount();
  });
});
