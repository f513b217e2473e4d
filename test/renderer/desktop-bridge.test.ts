import { afterEach, describe, expect, it, vi } from 'vitest';

import type { DesktopApi } from '../../main/preload/desktop-api';
import {
  desktopBridge,
  openMessagesFromNotifications,
} from '../../renderer/src/lib/desktop-bridge';
import { useMessagesStore } from '../../renderer/src/stores/messages-store';
import { useSessionStore } from '../../renderer/src/stores/session-store';
import { installFakeApi, ok } from './helpers/fake-api';
import { hostedMessage } from './helpers/hosted-message';
import { createContext, settle } from './helpers/mount';

// The dates these tests were written with.
const CREATED = '2026-01-01T00:00:00Z';
const message = (id: number, read = false) =>
  hostedMessage(id, { read, createdAt: CREATED, updatedAt: CREATED });

/** The preload's bridge as the page sees it, recording what the page asks of main. */
function installFakeDesktop(options: { unreadChangedFails?: boolean } = {}) {
  const openListeners: Array<(id: number) => void> = [];
  const unreadChanged = vi.fn(async () => {
    if (options.unreadChangedFails) throw new Error('main is gone');
  });
  const desktop = {
    onOpenMessage: (listener: (id: number) => void) => void openListeners.push(listener),
    unreadChanged,
  } as Partial<DesktopApi> as DesktopApi;
  window.desktop = desktop;
  return { openListeners, unreadChanged, desktop };
}

function messageRoutes() {
  return installFakeApi({
    'GET /messages': () =>
      ok({ items: [message(1), message(2)], total: 2, page: 1, pageSize: 20, unreadCount: 2 }),
    'PATCH /messages/:id': (req) =>
      ok({ ...message(1), read: (req.body as { read: boolean }).read }),
    'POST /messages/read-all': () => ok({ updated: 2 }),
    'DELETE /messages/:id': () => ok(null),
  });
}

afterEach(() => {
  delete window.desktop;
  vi.unstubAllGlobals();
});

describe('desktop bridge in a browser (no window.desktop)', () => {
  it('desktopBridge() is null and the reader works without it', async () => {
    messageRoutes();
    const { router } = createContext();

    expect(desktopBridge()).toBeNull();
    expect(() => openMessagesFromNotifications(router)).not.toThrow();

    const store = useMessagesStore();
    await store.load();
    await store.setRead(1, true);
    await store.readAll();
    expect(store.unreadCount).toBe(0);
  });
});

describe('desktop bridge in the desktop window', () => {
  it('a notification click routes to that message in the reader', async () => {
    const { openListeners, desktop } = installFakeDesktop();
    const { router, pinia } = createContext();
    useSessionStore(pinia).user = { id: 1, username: 'admin', role: 'admin', twoFactor: 'off' };
    await router.push('/logs');

    expect(desktopBridge()).toBe(desktop);
    openMessagesFromNotifications(router);
    expect(openListeners).toHaveLength(1);

    openListeners[0](5);

    // The reader's page is a lazily loaded chunk: the navigation ends once it is imported.
    await vi.waitFor(() => expect(router.currentRoute.value.name).toBe('message'), {
      timeout: 10_000,
    });
    expect(router.currentRoute.value.params.id).toBe('5');
  });

  it('reading, read-all and delete tell main the unread count changed', async () => {
    const { unreadChanged } = installFakeDesktop();
    messageRoutes();
    createContext();
    const store = useMessagesStore();
    await store.load();
    expect(unreadChanged).not.toHaveBeenCalled();

    await store.setRead(1, true);
    expect(unreadChanged).toHaveBeenCalledTimes(1);
    await store.readAll();
    expect(unreadChanged).toHaveBeenCalledTimes(2);
    await store.remove(2);
    expect(unreadChanged).toHaveBeenCalledTimes(3);
  });

  it('a failing bridge call does not fail the read', async () => {
    installFakeDesktop({ unreadChangedFails: true });
    messageRoutes();
    createContext();
    const store = useMessagesStore();
    await store.load();

    await expect(store.setRead(1, true)).resolves.toBeUndefined();
    await settle();
    expect(store.items[0].read).toBe(true);
  });
});
