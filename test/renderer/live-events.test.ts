import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import {
  REOPEN_AFTER_CLOSE_MS,
  subscribeConsoleEvents,
  type StreamState,
} from '../../renderer/src/api/events';
import ConsoleLayout from '../../renderer/src/layouts/ConsoleLayout.vue';
import { useLiveStore } from '../../renderer/src/stores/live-store';
import { useMessagesStore } from '../../renderer/src/stores/messages-store';
import { installFakeApi, ok } from './helpers/fake-api';
import { installFakeEventSource, type FakeEventSource } from './helpers/fake-event-source';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

let Source: typeof FakeEventSource;

beforeEach(() => {
  Source = installFakeEventSource();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

/**
 * The console's layout over a fake API whose message list is `items()` at each request (its
 * unread count from them), the list loaded and the layout's stream open: the messages store
 * and the sidebar's unread badge.
 */
async function layoutWithMessages(
  items: () => Array<{ id: number; title: string; read: boolean }>,
) {
  installFakeApi({
    'GET /messages': () =>
      ok({
        items: items().map((m) => ({ ...m })),
        total: items().length,
        page: 1,
        pageSize: 20,
        unreadCount: items().filter((m) => !m.read).length,
      }),
  });
  const { wrapper, pinia } = mountWithApp(
    ConsoleLayout,
    { global: { stubs: { 'router-view': true } } },
    signedInContext(),
  );
  const messages = useMessagesStore(pinia);
  await messages.load();
  Source.instances[0].open();
  await settle();
  return { wrapper, messages, badge: () => wrapper.find('[data-testid="nav-unread-count"]') };
}

describe('subscribeConsoleEvents', () => {
  it('reports connecting, open, and reconnecting while the browser retries a dropped stream', () => {
    const states: StreamState[] = [];
    const stop = subscribeConsoleEvents({ state: (s) => states.push(s) });
    const source = Source.instances[0];
    expect(source.url).toBe('/api/console/events');
    expect(source.init).toEqual({ withCredentials: true });

    source.open();
    source.drop();
    source.open();
    stop();

    expect(states).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    expect(Source.instances).toHaveLength(1);
    expect(source.readyState).toBe(Source.CLOSED);
  });

  it('opens a new stream after a pause when the browser gave up on one', async () => {
    vi.useFakeTimers();
    const states: StreamState[] = [];
    const stop = subscribeConsoleEvents({ state: (s) => states.push(s) });
    Source.instances[0].open();

    Source.instances[0].giveUp();
    expect(states.at(-1)).toBe('reconnecting');
    expect(Source.instances).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(REOPEN_AFTER_CLOSE_MS);
    expect(Source.instances).toHaveLength(2);

    // The abandoned stream has no say any more.
    Source.instances[0].drop();
    Source.instances[1].open();
    expect(states).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    stop();
  });

  it('the returned function cancels a pending reopen', async () => {
    vi.useFakeTimers();
    const stop = subscribeConsoleEvents({});
    Source.instances[0].giveUp();

    stop();
    await vi.advanceTimersByTimeAsync(REOPEN_AFTER_CLOSE_MS * 2);

    expect(Source.instances).toHaveLength(1);
  });

  it('hands parsed events to their handlers and drops malformed ones', () => {
    const sends: unknown[] = [];
    const stop = subscribeConsoleEvents({ send: (e) => sends.push(e) });
    const source = Source.instances[0];

    source.emit('send', { id: 3, status: 'sent' });
    source.dispatchEvent(new MessageEvent('send', { data: '{not json' }));
    stop();

    expect(sends).toEqual([{ id: 3, status: 'sent' }]);
  });

  it('hands schedule events to their handler', () => {
    const schedules: unknown[] = [];
    const stop = subscribeConsoleEvents({ schedule: (e) => schedules.push(e) });
    Source.instances[0].emit('schedule', { id: 7 });
    stop();

    expect(schedules).toEqual([{ id: 7 }]);
  });
});

describe('ConsoleLayout live indicator', () => {
  it('shows the stream state, and catches up on the unread count after a reconnect', async () => {
    const { calls } = installFakeApi({
      'GET /messages': () => ok({ items: [], total: 4, page: 1, pageSize: 1, unreadCount: 4 }),
    });
    const { wrapper, pinia } = mountWithApp(
      ConsoleLayout,
      { global: { stubs: { 'router-view': true } } },
      signedInContext(),
    );
    const live = useLiveStore(pinia);
    const status = () => wrapper.get('[data-testid="live-status"]');
    const unreadReads = () => calls.filter((c) => c.path === '/messages').length;
    await settle();

    expect(status().text()).toBe('Connecting…');
    expect(live.connected).toBe(false);

    Source.instances[0].open();
    await settle();
    expect(status().text()).toBe('Live');
    expect(status().attributes('data-state')).toBe('open');
    expect(live.connected).toBe(true);
    const readsWhileUp = unreadReads();

    Source.instances[0].drop();
    await settle();
    expect(status().text()).toBe('Reconnecting…');
    expect(live.connected).toBe(false);
    const sendVersion = live.sendVersion;

    Source.instances[0].open();
    await settle();
    expect(status().text()).toBe('Live');
    expect(unreadReads()).toBe(readsWhileUp + 1);
    expect(live.sendVersion).toBe(sendVersion + 1);

    wrapper.unmount();
    expect(Source.instances[0].readyState).toBe(Source.CLOSED);
  });
});

describe('read events (read state is per person)', () => {
  it('a read or read-all in another of the person’s windows updates the badge and the list', async () => {
    const { wrapper, messages, badge } = await layoutWithMessages(() => [
      { id: 2, title: 'two', read: false },
      { id: 1, title: 'one', read: false },
    ]);
    expect(badge().text()).toContain('2');

    Source.instances[0].emit('read', { id: 1, read: true, unreadCount: 1 });
    await settle();
    expect(messages.unreadCount).toBe(1);
    expect(messages.items.map((m) => [m.id, m.read])).toEqual([
      [2, false],
      [1, true],
    ]);
    expect(badge().text()).toContain('1');

    Source.instances[0].emit('read', { id: null, read: true, unreadCount: 0 });
    await settle();
    expect(messages.unreadCount).toBe(0);
    expect(messages.items.every((m) => m.read)).toBe(true);
    expect(badge().exists()).toBe(false);
    wrapper.unmount();
  });

  it('drops a message someone deleted from the list and the badge, through the layout’s stream', async () => {
    let items = [
      { id: 2, title: 'two', read: false },
      { id: 1, title: 'one', read: true },
    ];
    const { wrapper, messages, badge } = await layoutWithMessages(() => items);
    expect(badge().text()).toContain('1');

    items = items.filter((m) => m.id !== 2);
    Source.instances[0].emit('messageDeleted', { id: 2 });
    await settle();
    expect(messages.items.map((m) => m.id)).toEqual([1]);
    expect(messages.unreadCount).toBe(0);
    expect(badge().exists()).toBe(false);
    wrapper.unmount();
  });

  it('reads the list and the badge again when retention pruned old messages, through the layout’s stream', async () => {
    let items = [
      { id: 3, title: 'three', read: false },
      { id: 2, title: 'two', read: false },
      { id: 1, title: 'one', read: false },
    ];
    const { wrapper, messages, badge } = await layoutWithMessages(() => items);
    expect(badge().text()).toContain('3');

    items = items.filter((m) => m.id === 3);
    Source.instances[0].emit('messagesPruned', { count: 2, before: '2026-10-28T00:00:00.000Z' });
    await settle();
    expect(messages.items.map((m) => m.id)).toEqual([3]);
    expect(messages.unreadCount).toBe(1);
    expect(badge().text()).toContain('1');
    wrapper.unmount();
  });
});
