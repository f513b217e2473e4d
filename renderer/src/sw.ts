/// <reference lib="webworker" />
/**
 * The console's service worker (built by vite-plugin-pwa in injectManifest mode to /sw.js): it
 * keeps the app shell and the messages the reader already loaded readable offline, shows a
 * notification for each Web Push message Herald sends, and opens the message on a click
 * (docs/reader.md).
 */
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkFirst } from 'workbox-strategies';

import { notificationOfPush, openMessageRequest, messagePath } from './lib/push-notification';

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: (string | { url: string; revision: string | null })[];
};

/** The API answers kept for offline reading; dropped on sign-out, since they are one person's. */
const API_CACHE = 'herald-api';
/** Scripts and style sheets as they are loaded: named by their content, so never stale. */
const ASSET_CACHE = 'herald-assets';

// The shell only (index.html, icons): precaching every chunk would make each install fetch
// ECharts and every page the reader never opens; chunks are kept as they load instead.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// A new worker takes over at once: the shell it precached is the build the server now serves.
self.addEventListener('install', () => void self.skipWaiting());
clientsClaim();

// Pages: the server's index.html while it answers (an upgrade shows at once), the precached
// copy when it does not. /api/ is never a page.
registerRoute(
  new NavigationRoute(
    async ({ request }) => {
      try {
        return await fetch(request);
      } catch (err) {
        const shell = await matchPrecache('/index.html');
        if (shell) return shell;
        throw err;
      }
    },
    { denylist: [/^\/api\//] },
  ),
);

registerRoute(
  ({ url, request }) =>
    url.origin === self.location.origin &&
    request.method === 'GET' &&
    url.pathname.startsWith('/assets/'),
  new CacheFirst({ cacheName: ASSET_CACHE }),
);

/**
 * What the reader reads, network first: the list and each message, and who is signed in (the
 * router asks before it opens the reader). Never the event stream, which does not end.
 */
const OFFLINE_API = /^\/api\/console\/(?:messages(?:\/\d+)?|me|status)$/;

registerRoute(
  ({ url, request }) =>
    url.origin === self.location.origin &&
    request.method === 'GET' &&
    OFFLINE_API.test(url.pathname),
  new NetworkFirst({ cacheName: API_CACHE }),
);

// Signing out leaves nothing of that person's messages on the device for the next one.
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (
    event.request.method === 'POST' &&
    url.origin === self.location.origin &&
    url.pathname === '/api/console/logout'
  ) {
    event.waitUntil(caches.delete(API_CACHE));
  }
});

self.addEventListener('push', (event) => {
  const shown = notificationOfPush(event.data?.text() ?? null);
  event.waitUntil(
    self.registration.showNotification(shown.title, {
      body: shown.body,
      tag: shown.tag,
      data: shown.data,
      icon: '/icon-192.png',
      badge: '/icon-192.png',
      // Priority 5 stays on screen until the person acts on it.
      requireInteraction: shown.urgent,
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data as { messageId?: unknown } | null;
  const id = typeof data?.messageId === 'number' ? data.messageId : null;
  event.waitUntil(openMessage(id));
});

/**
 * A console window already open goes to the message itself (its router, no reload) and comes
 * to the front; otherwise a new window opens on it.
 */
async function openMessage(id: number | null): Promise<void> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((c) => new URL(c.url).origin === self.location.origin);
  if (open) {
    open.postMessage(openMessageRequest(id));
    // Focus needs the click's user activation; without it (a test's synthetic event) the
    // message is still opened.
    await open.focus().catch(() => undefined);
    return;
  }
  await self.clients.openWindow(messagePath(id));
}
