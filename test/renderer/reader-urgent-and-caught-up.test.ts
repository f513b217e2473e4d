// @vitest-environment jsdom
// DOMPurify (MessageContent) needs a DOM whose tree walk it supports (see render-content.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { HostedMessage } from '@contract';

import MessageDrawer from '../../renderer/src/components/MessageDrawer.vue';
import { priorityClass } from '../../renderer/src/lib/priority-style';
import MessagesPage from '../../renderer/src/pages/MessagesPage.vue';
import { useMessagesStore } from '../../renderer/src/stores/messages-store';
import { installFakeApi, ok } from './helpers/fake-api';
import { hostedMessage } from './helpers/hosted-message';
import { createContext, mountWithApp, settle } from './helpers/mount';

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
  document.body.innerHTML = '';
});

describe('priorityClass()', () => {
  it('priorityClass() marks 5 urgent and 4 high, and nothing else', () => {
    expect([5, 4, 3, 1, null].map(priorityClass)).toEqual(['is-urgent', 'is-high', '', '', '']);
  });
});

describe('the reader: urgent messages', () => {
  it('an urgent message’s row, and its title in the reader, carry the urgent style', async () => {
    installFakeApi({
      'GET /messages': () => ok(page([message(3, 5), message(2, 4), message(1, null)])),
      'GET /messages/:id': () =>
        ok({ ...message(3, 5), read: true, safeHtml: '<pre class="herald-text">body</pre>' }),
    });
    const { wrapper } = mountWithApp(MessagesPage);
    await settle(10);
    const rows = [...document.querySelectorAll('[data-testid="messages-table"] .el-table__row')];
    const classOf = (title: string) => [
      ...(rows.find((r) => r.textContent?.includes(title))?.classList ?? []),
    ];
    expect(classOf('Message 3')).toContain('is-urgent');
    expect(classOf('Message 2')).toContain('is-high');
    expect(classOf('Message 1')).toContain('el-table__row');
    expect(classOf('Message 1')).not.toContain('is-urgent');
    expect(classOf('Message 1')).not.toContain('is-high');
    wrapper.unmount();

    const drawer = mountWithApp(MessageDrawer, { props: { messageId: 3 } });
    await settle(10);
    const title = document.querySelector('[data-testid="message-title"]');
    expect(title?.textContent?.trim()).toBe('Message 3');
    expect(title?.classList.contains('is-urgent')).toBe(true);
    drawer.wrapper.unmount();
  });
});

describe('the reader: an empty unread inbox', () => {
  const emptyText = () =>
    document.querySelector('[data-testid="messages-table"] .el-table__empty-text')?.textContent;

  it.each([
    ['en', 'All caught up: nothing unread.'],
    ['zh-CN', '全部已读，没有未读消息。'],
  ] as const)(
    'says "all caught up" with unread only and nothing unread (%s)',
    async (locale, text) => {
      installFakeApi({ 'GET /messages': () => ok({ ...page([]), unreadCount: 0 }) });
      const ctx = createContext(locale);
      useMessagesStore(ctx.pinia).unreadOnly = true;
      const { wrapper } = mountWithApp(MessagesPage, {}, ctx);
      await settle(20);
      expect(emptyText()).toBe(text);
      wrapper.unmount();
    },
  );

  it('says "No matches" when a search finds nothing', async () => {
    installFakeApi({ 'GET /messages': () => ok({ ...page([]), unreadCount: 0 }) });
    const ctx = createContext('en');
    const store = useMessagesStore(ctx.pinia);
    store.unreadOnly = true;
    store.q = 'disk';
    const { wrapper } = mountWithApp(MessagesPage, {}, ctx);
    await settle(20);
    expect(emptyText()).toBe('No matches');
    wrapper.unmount();
  });
});
