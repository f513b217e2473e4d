import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { HostedMessage } from '@contract';

import { useChannelTypesStore } from '../../renderer/src/stores/channel-types-store';
import { useMessagesStore } from '../../renderer/src/stores/messages-store';
import { useSourcesStore } from '../../renderer/src/stores/sources-store';
import { useSessionStore } from '../../renderer/src/stores/session-store';
import { fail, installFakeApi, ok } from './helpers/fake-api';
import { hostedMessage } from './helpers/hosted-message';

// The dates these tests were written with (a live event here is a second later).
const CREATED = '2026-01-01T00:00:00Z';
const message = (id: number, read = false) =>
  hostedMessage(id, { read, createdAt: CREATED, updatedAt: CREATED });

/** A page of the message list as the server answers it, its unread count from the items. */
const listPage = (items: HostedMessage[]) =>
  ok({
    items,
    total: items.length,
    page: 1,
    pageSize: 20,
    unreadCount: items.filter((m) => !m.read).length,
  });

beforeEach(() => setActivePinia(createPinia()));
afterEach(() => vi.unstubAllGlobals());

describe('useMessagesStore', () => {
  it('load() sends the search, unread filter and page, and keeps the unread count', async () => {
    const { calls } = installFakeApi({
      'GET /messages': () =>
        ok({
          items: [message(2), message(1, true)],
          total: 2,
          page: 1,
          pageSize: 20,
          unreadCount: 1,
        }),
    });
    const store = useMessagesStore();
    store.q = ' disk ';
    store.unreadOnly = true;

    await store.load();

    expect(calls[0].query.get('q')).toBe('disk');
    expect(calls[0].query.get('unread')).toBe('true');
    expect(store.items.map((m) => m.id)).toEqual([2, 1]);
    expect(store.unreadCount).toBe(1);
  });

  it('onNewMessage() counts the message and reloads a list that is showing', async () => {
    let items = [message(1, true)];
    installFakeApi({
      'GET /messages': () => listPage(items),
    });
    const store = useMessagesStore();
    await store.load();
    items = [message(2), ...items];

    await store.onNewMessage({
      id: 2,
      title: 'Message 2',
      format: 'text',
      priority: null,
      createdAt: '2026-01-01T00:00:01Z',
    });

    expect(store.items.map((m) => m.id)).toEqual([2, 1]);
    expect(store.unreadCount).toBe(1);
    expect(store.freshIds).toContain(2);
  });

  it('onMessageDeleted() reads the count again, and the list only when it shows the message', async () => {
    let items = [message(3), message(2), message(1, true)];
    const { calls } = installFakeApi({
      'GET /messages': (req) =>
        req.query.get('unread') === 'true'
          ? ok({ items: [], total: 0, page: 1, pageSize: 1, unreadCount: 1 })
          : listPage(items),
    });
    const store = useMessagesStore();
    await store.load();
    const lists = () => calls.filter((c) => c.query.get('unread') !== 'true').length;

    // Someone else deleted message 3, unread here: the count is the server's, the list reloads.
    items = [message(2), message(1, true)];
    await store.onMessageDeleted({ id: 3 });
    expect(store.unreadCount).toBe(1);
    expect(store.items.map((m) => m.id)).toEqual([2, 1]);
    expect(lists()).toBe(2);

    // One not on this page: the count only.
    await store.onMessageDeleted({ id: 99 });
    expect(lists()).toBe(2);
    expect(calls.filter((c) => c.query.get('unread') === 'true')).toHaveLength(2);
  });

  it('onMessagesPruned() reads the count again, and the list once it is shown', async () => {
    let items = [message(3), message(2)];
    const { calls } = installFakeApi({
      'GET /messages': (req) =>
        req.query.get('unread') === 'true'
          ? ok({
              items: [],
              total: 0,
              page: 1,
              pageSize: 1,
              unreadCount: items.filter((m) => !m.read).length,
            })
          : listPage(items),
    });
    const store = useMessagesStore();
    const lists = () => calls.filter((c) => c.query.get('unread') !== 'true').length;

    // No list shown yet (the badge only): the count alone.
    items = [message(3)];
    await store.onMessagesPruned();
    expect(store.unreadCount).toBe(1);
    expect(lists()).toBe(0);

    await store.load();
    items = [];
    await store.onMessagesPruned();
    expect(store.unreadCount).toBe(0);
    expect(store.items).toEqual([]);
    expect(lists()).toBe(2);
  });

  it('setRead() and readAll() keep the unread count in step', async () => {
    installFakeApi({
      'GET /messages': () =>
        ok({ items: [message(1), message(2)], total: 2, page: 1, pageSize: 20, unreadCount: 2 }),
      'PATCH /messages/:id': (req) =>
        ok({ ...message(1), read: (req.body as { read: boolean }).read }),
      'POST /messages/read-all': () => ok({ updated: 1 }),
    });
    const store = useMessagesStore();
    await store.load();

    await store.setRead(1, true);
    expect(store.unreadCount).toBe(1);
    expect(store.items[0].read).toBe(true);

    await store.readAll();
    expect(store.unreadCount).toBe(0);
    expect(store.items.every((m) => m.read)).toBe(true);
  });

  it('load() ignores an older answer that arrives after a newer one', async () => {
    let release: (() => void) | null = null;
    let n = 0;
    installFakeApi({
      'GET /messages': async () => {
        n += 1;
        const mine = n;
        if (mine === 1) await new Promise<void>((r) => (release = r));
        return ok({ items: [message(mine)], total: 1, page: 1, pageSize: 20, unreadCount: 0 });
      },
    });
    const store = useMessagesStore();

    const first = store.load();
    await store.load();
    release!();
    await first;

    expect(store.items.map((m) => m.id)).toEqual([2]);
  });
  it('load() puts a failure in error instead of throwing, and a later load clears it', async () => {
    let failing = true;
    installFakeApi({
      'GET /messages': () =>
        failing
          ? fail(503, '数据库忙，请稍后再试')
          : ok({ items: [message(1)], total: 1, page: 1, pageSize: 20, unreadCount: 1 }),
    });
    const store = useMessagesStore();

    await expect(store.load()).resolves.toBeUndefined();
    expect(store.error).toBe('数据库忙，请稍后再试');
    expect(store.loaded).toBe(false);

    failing = false;
    await store.load();
    expect(store.error).toBeNull();
    expect(store.items.map((m) => m.id)).toEqual([1]);
  });

  it('store.q and store.unreadOnly are the list filters: setting one reloads from page 1', async () => {
    vi.useFakeTimers();
    const { calls } = installFakeApi({
      'GET /messages': () => ok({ items: [], total: 0, page: 1, pageSize: 20, unreadCount: 0 }),
    });
    const store = useMessagesStore();
    store.page = 3;

    store.unreadOnly = true;
    await vi.runOnlyPendingTimersAsync();
    vi.useRealTimers();

    expect(calls).toHaveLength(1);
    expect(calls[0].query.get('unread')).toBe('true');
    expect(calls[0].query.get('page')).toBe('1');
    expect(store.filtered).toBe(true);
  });
});

describe('useSessionStore', () => {
  it('restore() asks for setup and no user while setup is required', async () => {
    const { calls } = installFakeApi({
      'GET /status': () => ok({ setupRequired: true, version: '0.1.0' }),
    });
    const session = useSessionStore();

    await session.restore();

    expect(session.setupRequired).toBe(true);
    expect(session.signedIn).toBe(false);
    expect(calls.map((c) => c.path)).toEqual(['/status']);
  });

  it('restore() takes the signed-in user from the status, without a request that could answer 401', async () => {
    const { calls } = installFakeApi({
      'GET /status': () =>
        ok({
          setupRequired: false,
          version: '0.1.0',
          user: { id: 1, username: 'admin', role: 'admin' },
        }),
    });
    const session = useSessionStore();

    await session.restore();

    expect(session.signedIn).toBe(true);
    expect(session.user?.username).toBe('admin');
    expect(calls.map((c) => c.path)).toEqual(['/status']);
  });

  it('login() keeps the user signed out and passes the server msg on a wrong password', async () => {
    installFakeApi({ 'POST /login': () => fail(401, '用户名或密码错误') });
    const session = useSessionStore();

    await expect(session.login('admin', 'nope')).rejects.toMatchObject({
      code: 401,
      msg: '用户名或密码错误',
    });
    expect(session.signedIn).toBe(false);
  });
});

describe('useChannelTypesStore', () => {
  it('load() shares one request between concurrent callers and caches the kinds', async () => {
    const { calls } = installFakeApi({
      'GET /channel-types': () =>
        ok([
          {
            type: 'email',
            label: 'Email',
            contentTypes: ['text', 'html'],
            supportsMentions: false,
            supportsDynamicRecipients: true,
            fixedRecipient: 'required',
            secretFields: ['password'],
          },
        ]),
    });
    const store = useChannelTypesStore();

    await Promise.all([store.load(), store.load()]);
    await store.load();

    expect(calls).toHaveLength(1);
    expect(store.contentTypesOf('email')).toEqual(['text', 'html']);
    expect(store.contentTypesOf('unknown')).toEqual(['text']);
  });
});

describe('useSourcesStore', () => {
  it('useSourcesStore() calls the task or the template route by the source’s kind', async () => {
    const { calls } = installFakeApi({
      'GET /tasks/:id/token': () => ok({ token: 'task-token' }),
      'GET /templates/:id/token': () => ok({ token: 'template-token' }),
      'GET /tasks/:id/instances': () => ok([]),
      'POST /templates/:id/instances': () => ok({ id: 9 }),
      'PATCH /instances/:id': () => ok({ id: 9, enabled: false }),
    });
    const sources = useSourcesStore();

    const task = await sources.token({ kind: 'task', id: 3 });
    const template = await sources.token({ kind: 'template', id: 4 });
    await sources.instances({ kind: 'task', id: 3 });
    await sources.addInstance(
      { kind: 'template', id: 4 },
      { channelId: 1, contentType: 'text', enabled: true },
    );
    await sources.updateInstance(9, { enabled: false });

    expect([task.token, template.token]).toEqual(['task-token', 'template-token']);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /tasks/3/token',
      'GET /templates/4/token',
      'GET /tasks/3/instances',
      'POST /templates/4/instances',
      'PATCH /instances/9',
    ]);
  });
});
