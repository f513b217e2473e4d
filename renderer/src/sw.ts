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

/** Who is signed in, which the router asks before it opens the reader. */
const SESSION_ANSWERS = ['/api/console/status', '/api/console/me'];

async function keepSessionAnswers(): Promise<void> {
  const api = await caches.open(API_CACHE);
  await Promise.all(
    SESSION_ANSWERS.map(async (url) => {
      const answer = await fetch(url);
      if (answer.ok) await api.put(url, answer);
    }),
  );
}

/**
 * What the page loaded before this worker controlled it: the scripts and style sheet that
 * index.html names (from the browser's HTTP cache, where they already are) and the session.
 * Without them the first offline start after installing would be a blank page or sign-in.
 */
async function keepWhatLoadedBefore(): Promise<void> {
  const shell = await matchPrecache('/index.html');
  if (shell) {
    const html = await shell.text();
    const urls = [...new Set(html.match(/\/assets\/[^"'\s>]+/g) ?? [])];
    const assets = await caches.open(ASSET_CACHE);
    await Promise.all(
      urls.map(async (url) => {
        if (await assets.match(url)) return;
        const answer = await fetch(url);
        if (answer.ok) await assets.put(url, answer);
      }),
    );
  }
  await keepSessionAnswers();
}

self.addEventListener('activate', (event) => {
  // Offline reading is a convenience: a failure here must not keep the worker from activating.
  event.waitUntil(keepWhatLoadedBefore().catch(() => undefined));
});

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

/** The calls that start a session (sign-in, first-run setup, an accepted invite). */
const SIGN_IN = new Set(['/api/console/login', '/api/console/setup', '/api/console/invite']);
const SSO_CALLBACK = '/api/console/sso/oidc/callback';

/** A message of the reader's, by its API path. */
const MESSAGE_PATH = /^\/api\/console\/messages\/\d+$/;

/**
 * The kept copy of a message follows what the person did to it online: read or unread (the
 * drawer marks a message read on opening, and would try again offline, and fail, on a copy kept
 * from before), or gone once deleted.
 */
async function followMessageChange(request: Request, path: string): Promise<Response> {
  const answer = await fetch(request);
  if (answer.ok) {
    const api = await caches.open(API_CACHE);
    if (request.method === 'DELETE') {
      await api.delete(path);
    } else if (await api.match(path)) {
      const fresh = await fetch(path).catch(() => null);
      if (fresh?.ok) await api.put(path, fresh);
    }
  }
  return answer;
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== self.location.origin) return;
  const method = event.request.method;
  if ((method === 'PATCH' || method === 'DELETE') && MESSAGE_PATH.test(url.pathname)) {
    event.respondWith(followMessageChange(event.request, url.pathname));
    return;
  }
  // A single sign-on ends with the provider sending the browser here: the person may not be
  // the last one, so their cached messages go, as after a password sign-in.
  if (method === 'GET' && url.pathname === SSO_CALLBACK) {
    event.waitUntil(caches.delete(API_CACHE).catch(() => undefined));
    return;
  }
  if (method !== 'POST') return;
  // Signing out leaves nothing of that person's messages on the device for the next one.
  if (url.pathname === '/api/console/logout') {
    event.waitUntil(caches.delete(API_CACHE));
  } else if (SIGN_IN.has(url.pathname)) {
    // The next person's session replaces the last one's, and the reader can start offline.
    event.respondWith(
      (async () => {
        const answer = await fetch(event.request);
        if (answer.ok) {
          event.waitUntil(
            caches
              .delete(API_CACHE)
              .then(keepSessionAnswers)
              .catch(() => undefined),
          );
        }
        return answer;
      })(),
    );
  }
});

self.addEventListener('push', (event) => {
  const shown = notificationOfPush(event.data?.text() ?? null);
  event.waitUntil(
    self.registration.showNotification(shown.title, {
      body: shown.body,
      tag: shown.tag,
      data: shown.data,
      // No badge: Android draws a badge's alpha as a mask, and the icon would be a white square.
      icon: '/icon-192.png',
      // Priority 5 stays on screen until the person acts on it.
      requireInteraction: shown.urgent,
      // The person's quiet hours softened it: no sound or vibration.
      silent: shown.silent,
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
