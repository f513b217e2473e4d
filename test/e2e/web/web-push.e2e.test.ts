import { createECDH } from 'node:crypto';

import type { Browser, BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { startLocalPushService, type LocalPushService } from '../../helpers/local-push-service';
import { chromiumAvailable, ensureConsoleBuilt, launchChromium, RENDERER_DIST } from './chromium';
import { ConsolePage } from './console-page';

/* eslint-disable @typescript-eslint/no-explicit-any -- the page's and worker's globals are untyped here (no DOM lib) */

const haveChromium = chromiumAvailable('web push e2e');

/** What the page's stand-in push manager keeps for the test: the subscription it made. */
interface MadeSubscription {
  endpoint: string;
  p256dh: string;
  auth: string;
  /** The private half of the page's ECDH pair (a JWK), for the test to decrypt with. */
  privateJwk: { d: string };
}

/**
 * Headless Chromium cannot reach a real push service, so before the console loads,
 * PushManager's subscribe and getSubscription are replaced: subscribe makes a real ECDH P-256
 * pair and a 16-byte auth secret with WebCrypto, as a browser does, and answers a subscription
 * whose endpoint is the local push service. Everything else (the permission, the service worker,
 * Herald's key, the POST) is the console's own path. Runs in the page, as a string-free
 * function Playwright serialises.
 */
function replacePushManager(endpoint: string): void {
  const w = globalThis as any;
  const b64url = (bytes: ArrayBuffer) =>
    btoa(String.fromCharCode(...new Uint8Array(bytes)))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  const unb64url = (text: string) =>
    Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  // A browser keeps its subscription across page loads; so does this one, for the tab's life.
  const KEPT = 'herald-test-push-subscription';
  const asSubscription = (kept: any) => ({
    endpoint: kept.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: unb64url(kept.serverKey).buffer },
    toJSON: () => ({
      endpoint: kept.endpoint,
      expirationTime: null,
      keys: { p256dh: kept.p256dh, auth: kept.auth },
    }),
    getKey: () => null,
    unsubscribe: async () => {
      w.sessionStorage.removeItem(KEPT);
      return true;
    },
  });
  w.PushManager.prototype.subscribe = async function (options: any) {
    const pair = await w.crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, [
      'deriveBits',
    ]);
    const raw = await w.crypto.subtle.exportKey('raw', pair.publicKey);
    const privateJwk = await w.crypto.subtle.exportKey('jwk', pair.privateKey);
    const auth = w.crypto.getRandomValues(new Uint8Array(16));
    const kept = {
      endpoint,
      p256dh: b64url(raw),
      auth: b64url(auth.buffer),
      serverKey: b64url(new Uint8Array(options.applicationServerKey).buffer),
      privateJwk,
    };
    w.sessionStorage.setItem(KEPT, JSON.stringify(kept));
    return asSubscription(kept);
  };
  w.PushManager.prototype.getSubscription = async function () {
    const kept = w.sessionStorage.getItem(KEPT);
    return kept ? asSubscription(JSON.parse(kept)) : null;
  };
  w.__heraldTestPush = () => JSON.parse(w.sessionStorage.getItem(KEPT) ?? 'null');
}

describe.skipIf(!haveChromium)(
  'the installable reader: service worker, Web Push subscription and notification',
  // One journey: install, subscribe, push, notification, click, offline.
  { shuffle: false },
  () => {
    let push: LocalPushService;
    let herald: TestHerald;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let ui: ConsolePage;
    let cdp: CDPSession;
    let registrationId = '';
    let template: { token: string };
    let messageId = 0;
    const pageErrors: string[] = [];
    const endpointHolder = { value: '' };

    beforeAll(async () => {
      ensureConsoleBuilt();
      push = await startLocalPushService();
      vi.stubEnv('HERALD_WEB_PUSH_ENDPOINTS', push.origin);
      herald = await startTestHerald({ rendererDir: RENDERER_DIST });
      const inbox = await herald.createChannel('hosted', {}, 'Ops inbox');
      template = await herald.createTemplate(
        { name: 'disk alerts', text: 'the disk of db-2 is full' },
        [{ channelId: inbox.id, contentType: 'text' }],
      );
      browser = await launchChromium();
      context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        locale: 'en-US',
      });
      await context.grantPermissions(['notifications'], { origin: herald.url });
      endpointHolder.value = push.endpoint('chromium');
      await context.addInitScript(replacePushManager, endpointHolder.value);
      page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      ui = new ConsolePage(page, herald.url);

      cdp = await context.newCDPSession(page);
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
        const ours = registrations.find((r) => r.scopeURL === `${herald.url}/` && !r.isDeleted);
        if (ours) registrationId = ours.registrationId;
      });
      await cdp.send('ServiceWorker.enable');
    }, 120_000);

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await herald?.close(true);
      await push?.close();
      vi.unstubAllEnvs();
    });

    /** The service worker of the console, once Chromium has started it. */
    async function serviceWorker(): Promise<Worker> {
      const running = context.serviceWorkers().find((w) => w.url() === `${herald.url}/sw.js`);
      return running ?? context.waitForEvent('serviceworker');
    }

    it('installs the service worker from the reader, under Herald’s CSP, with the manifest linked', async () => {
      await ui.goto('/sign-in?redirect=/messages');
      await ui.byTestId('login-form').waitFor();
      await ui.byTestId('login-username').fill(ADMIN.username);
      await ui.byTestId('login-password').fill(ADMIN.password);
      await ui.byTestId('login-submit').click();
      await ui.byTestId('page-messages').waitFor();

      const state = await page.evaluate(async () => {
        const nav = (globalThis as any).navigator;
        const reg = await nav.serviceWorker.ready;
        // `ready` resolves once a worker is active, which may still be `activating`: its
        // activate handler (claiming the open pages) has not finished yet.
        const worker = reg.active;
        if (worker.state !== 'activated') {
          await new Promise<void>((resolve) =>
            worker.addEventListener('statechange', () => {
              if (worker.state === 'activated') resolve();
            }),
          );
        }
        return { script: worker.scriptURL, scope: reg.scope, state: worker.state };
      });
      expect(state).toEqual({
        script: `${herald.url}/sw.js`,
        scope: `${herald.url}/`,
        state: 'activated',
      });
      expect(await page.locator('link[rel="manifest"]').getAttribute('href')).toBe(
        '/manifest.webmanifest',
      );
      await expect.poll(() => registrationId).not.toBe('');
      expect((await serviceWorker()).url()).toBe(`${herald.url}/sw.js`);
    });

    it('subscribes this device: the permission, Herald’s key and the subscription reach Herald', async () => {
      await ui.byTestId('push-subscribe').click();
      await ui.byTestId('push-dialog').waitFor();
      await page.locator('input[data-testid="push-device-name"]').fill('E2E laptop');
      await ui.byTestId('push-save').click();
      await ui.expectClosed(ui.byTestId('push-dialog'), 'push-error');

      const made = (await page.evaluate(() =>
        (globalThis as any).__heraldTestPush(),
      )) as MadeSubscription;
      expect(made.endpoint).toBe(endpointHolder.value);
      const { publicKey } = await herald.console.ok('GET', '/push/key');
      const key = await page.evaluate(async () => {
        const reg = await (globalThis as any).navigator.serviceWorker.ready;
        const sub = await reg.pushManager.getSubscription();
        return Array.from(new Uint8Array(sub.options.applicationServerKey) as Uint8Array);
      });
      expect(Buffer.from(key).toString('base64url')).toBe(publicKey);

      const { items } = await herald.console.ok('GET', '/push/subscriptions');
      expect(items).toEqual([
        expect.objectContaining({
          deviceName: 'E2E laptop',
          endpoint: endpointHolder.value,
          filter: { tasks: 'all', templates: 'all', minPriority: 1 },
        }),
      ]);
      expect(await ui.byTestId('push-subscribe').textContent()).toContain(
        'Change this device’s notifications',
      );
    });

    it('shows the notification for a pushed message, and a click on it opens the message', async () => {
      const title = 'Disk full on db-2';
      const answer = await herald.sendV2({
        token: template.token,
        title,
        priority: 5,
      });
      expect(answer.body.code).toBe(200);
      const [received] = await push.waitForPushes(1, endpointHolder.value);
      expect(push.checkVapid(received!).problems).toEqual([]);

      // The page made the keys; the push service's copy is decrypted with them, as Chromium would.
      const made = (await page.evaluate(() =>
        (globalThis as any).__heraldTestPush(),
      )) as MadeSubscription;
      const ecdh = createECDH('prime256v1');
      ecdh.setPrivateKey(Buffer.from(made.privateJwk.d, 'base64url'));
      expect(ecdh.getPublicKey().toString('base64url')).toBe(made.p256dh);
      const plaintext = push
        .decrypt(received!, { p256dh: made.p256dh, auth: made.auth, ecdh })
        .toString('utf8');
      const payload = JSON.parse(plaintext) as { messageId: number };
      messageId = payload.messageId;
      expect(payload).toMatchObject({ title, body: 'the disk of db-2 is full', priority: 5 });

      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin: herald.url,
        registrationId,
        data: plaintext,
      });
      // A predicate's promise would count as truthy for waitForFunction: polled instead.
      const notifications = () =>
        page.evaluate(async () => {
          const reg = await (globalThis as any).navigator.serviceWorker.ready;
          const list = await reg.getNotifications();
          return list.length
            ? list.map((n: any) => ({
                title: n.title,
                body: n.body,
                tag: n.tag,
                data: n.data,
                requireInteraction: n.requireInteraction,
              }))
            : null;
        });
      await expect.poll(notifications).not.toBeNull();
      expect(await notifications()).toEqual([
        {
          title,
          body: 'the disk of db-2 is full',
          tag: `herald-message-${messageId}`,
          data: { messageId, priority: 5, url: `/messages/${messageId}` },
          requireInteraction: true,
        },
      ]);

      // No protocol clicks a notification: the worker's own notificationclick event is raised in
      // the worker, on the notification it showed, and goes through its real handler.
      const sw = await serviceWorker();
      await sw.evaluate(async () => {
        const scope = globalThis as any;
        const [notification] = await scope.registration.getNotifications();
        scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification }));
      });
      await page.waitForURL(`${herald.url}/messages/${messageId}`);
      await ui.byTestId('message-drawer').filter({ hasText: title }).waitFor();
      // The click closed it.
      await expect
        .poll(() =>
          page.evaluate(async () => {
            const reg = await (globalThis as any).navigator.serviceWorker.ready;
            return (await reg.getNotifications()).length;
          }),
        )
        .toBe(0);
    });

    it('keeps the messages it loaded readable offline', async () => {
      // The worker keeps an answer after handing it to the page: wait until the opened message
      // is in its cache, or a fast reload can go offline before it was written.
      await expect
        .poll(() =>
          page.evaluate(async (id) => {
            const cache = await (globalThis as any).caches.open('herald-api');
            const keys: Array<{ url: string }> = await cache.keys();
            return keys.some((k) => new URL(k.url).pathname === `/api/console/messages/${id}`);
          }, messageId),
        )
        .toBe(true);
      await context.setOffline(true);
      try {
        await page.reload();
        await ui.byTestId('message-drawer').filter({ hasText: 'Disk full on db-2' }).waitFor();
        await ui.row('messages-table', 'Disk full on db-2').waitFor();
      } finally {
        await context.setOffline(false);
      }
    });

    it('lists the device on the Account page, marked as this one, and removes it', async () => {
      await ui.goto('/account');
      await ui.byTestId('page-account').waitFor();
      const here = ui.byTestId('push-device-this');
      await here.waitFor();
      expect(await here.textContent()).toContain('E2E laptop');
      await here.getByTestId('push-device-remove').click();
      await page.locator('.el-message-box__btns .el-button--primary').click();
      await ui.byTestId('push-device-this').waitFor({ state: 'detached' });
      expect((await herald.console.ok('GET', '/push/subscriptions')).items).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
