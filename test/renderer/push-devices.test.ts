import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { PushSubscriptionInfo } from '../../contract';
import PushDevices from '../../renderer/src/components/account/PushDevices.vue';
import PushSubscribeButton from '../../renderer/src/components/PushSubscribeButton.vue';
import { fail, installFakeApi, ok, type FakeHandler } from './helpers/fake-api';
import { createContext, mountWithApp, settle, signedInContext } from './helpers/mount';

/**
 * The reader's "Notify this device" and Account → Notified devices, against the fake console
 * API and a browser whose service worker, push manager and notification permission are stand-ins
 * that record what the console asked of them (happy-dom has none of the three).
 */

/** Herald's VAPID public key as the server sends it: 65 bytes, base64url. */
const VAPID_BYTES = Uint8Array.from({ length: 65 }, (_, i) => (i === 0 ? 4 : (i * 37) % 256));
const VAPID_KEY = Buffer.from(VAPID_BYTES).toString('base64url');
const P256DH = Buffer.from(Uint8Array.from({ length: 65 }, (_, i) => i + 1)).toString('base64url');
const AUTH = Buffer.from(Uint8Array.from({ length: 16 }, (_, i) => 200 + i)).toString('base64url');
const ENDPOINT = 'https://push.example/send/this-browser';

interface FakeBrowser {
  permission: NotificationPermission;
  /** What the next permission prompt answers. */
  answer: NotificationPermission;
  subscription: FakeSubscription | null;
  subscribeOptions: PushSubscriptionOptionsInit[];
  unsubscribed: string[];
}

class FakeSubscription {
  constructor(
    readonly endpoint: string,
    readonly options: { applicationServerKey: ArrayBuffer | null },
    private readonly browser: FakeBrowser,
  ) {}
  toJSON() {
    return { endpoint: this.endpoint, keys: { p256dh: P256DH, auth: AUTH } };
  }
  unsubscribe() {
    this.browser.unsubscribed.push(this.endpoint);
    this.browser.subscription = null;
    return Promise.resolve(true);
  }
}

let browser: FakeBrowser;

/** A secure browser with push: a service worker registration, a push manager, a permission. */
function installPushBrowser(): void {
  browser = {
    permission: 'default',
    answer: 'granted',
    subscription: null,
    subscribeOptions: [],
    unsubscribed: [],
  };
  const pushManager = {
    getSubscription: () => Promise.resolve(browser.subscription),
    subscribe: (options: PushSubscriptionOptionsInit) => {
      browser.subscribeOptions.push(options);
      const key = options.applicationServerKey as Uint8Array;
      browser.subscription = new FakeSubscription(
        ENDPOINT,
        { applicationServerKey: key.slice().buffer },
        browser,
      );
      return Promise.resolve(browser.subscription);
    },
  };
  const registration = { pushManager };
  vi.stubGlobal('isSecureContext', true);
  vi.stubGlobal('PushManager', class {});
  vi.stubGlobal(
    'Notification',
    class {
      static get permission() {
        return browser.permission;
      }
      static requestPermission() {
        browser.permission = browser.answer;
        return Promise.resolve(browser.answer);
      }
    },
  );
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: {
      getRegistration: () => Promise.resolve(registration),
      register: () => Promise.resolve(registration),
      ready: Promise.resolve(registration),
    },
  });
}

beforeEach(installPushBrowser);
afterEach(() => {
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, 'serviceWorker');
  document.body.innerHTML = '';
});

const device = (id: number, endpoint: string, deviceName: string): PushSubscriptionInfo => ({
  id,
  deviceName,
  endpoint,
  filter: { tasks: 'all', templates: 'all', minPriority: 1 },
  createdAt: '2026-11-27T08:00:00.000Z',
  lastPushAt: null,
});

function fakeServer(routes: Record<string, FakeHandler> = {}) {
  return installFakeApi({
    'GET /push/key': () => ok({ publicKey: VAPID_KEY }),
    'POST /push/subscriptions': (req) =>
      ok({ ...device(9, ENDPOINT, (req.body as { deviceName: string }).deviceName) }),
    'GET /tasks': () => ok({ items: [{ id: 3, name: 'Nightly backup' }], total: 1 }),
    'GET /templates': () => ok({ items: [{ id: 5, name: 'Deploys' }], total: 1 }),
    ...routes,
  });
}

const byTestId = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);

async function openDialog(role: 'admin' | 'viewer' = 'admin') {
  const { wrapper } = mountWithApp(PushSubscribeButton, {}, signedInContext(role));
  await settle();
  await wrapper.get('[data-testid="push-subscribe"]').trigger('click');
  // The dialog's code loads on the first click.
  await vi.waitFor(() => expect(byTestId('push-dialog')).not.toBeNull());
  await settle(10);
  return wrapper;
}

async function chooseOption(selectTestId: string, optionText: string) {
  byTestId(selectTestId)?.querySelector<HTMLElement>('.el-select__wrapper')?.click();
  await settle(10);
  const option = [...document.querySelectorAll<HTMLElement>('.el-select-dropdown__item')].find(
    (li) => li.textContent?.trim() === optionText,
  );
  expect(option, optionText).toBeDefined();
  option?.click();
  await settle(10);
}

describe('PushSubscribeButton', () => {
  it('asks permission, subscribes with Herald’s key and sends the device’s name and filter', async () => {
    const api = fakeServer();
    const wrapper = await openDialog();
    expect(wrapper.get('[data-testid="push-subscribe"]').text()).toBe('Notify this device');
    const name = document.querySelector<HTMLInputElement>('input[data-testid="push-device-name"]');
    // Offered from the browser's own name, as Account → sessions names it.
    expect(name?.value).toMatch(/\S/);
    name!.value = '  Work laptop ';
    name!.dispatchEvent(new Event('input'));
    byTestId('push-which-some')?.querySelector('input')?.click();
    await settle(10);
    await chooseOption('push-tasks', 'Nightly backup');
    await chooseOption('push-min-priority', '4 · High');

    byTestId('push-save')?.click();
    await settle(20);

    expect(browser.permission).toBe('granted');
    expect(browser.subscribeOptions).toHaveLength(1);
    expect(browser.subscribeOptions[0].userVisibleOnly).toBe(true);
    expect([...(browser.subscribeOptions[0].applicationServerKey as Uint8Array)]).toEqual([
      ...VAPID_BYTES,
    ]);
    const sent = api.calls.filter((c) => c.method === 'POST' && c.path === '/push/subscriptions');
    expect(sent.map((c) => c.body)).toEqual([
      {
        endpoint: ENDPOINT,
        keys: { p256dh: P256DH, auth: AUTH },
        deviceName: 'Work laptop',
        filter: { tasks: [3], templates: [], minPriority: 4 },
      },
    ]);
    expect(wrapper.get('[data-testid="push-subscribe"]').text()).toBe(
      'Change this device’s notifications',
    );
  });

  it('drops a subscription made with another key and makes a new one', async () => {
    const old = 'https://push.example/send/made-with-an-older-key';
    browser.subscription = new FakeSubscription(
      old,
      { applicationServerKey: new Uint8Array(65).fill(9).buffer },
      browser,
    );
    const api = fakeServer();
    const wrapper = await openDialog('viewer');
    expect(wrapper.get('[data-testid="push-subscribe"]').text()).toBe(
      'Change this device’s notifications',
    );
    byTestId('push-save')?.click();
    await settle(20);
    expect(browser.unsubscribed).toEqual([old]);
    expect(browser.subscribeOptions).toHaveLength(1);
    const sent = api.calls.find((c) => c.method === 'POST' && c.path === '/push/subscriptions');
    expect((sent?.body as { endpoint: string }).endpoint).toBe(ENDPOINT);
  });

  it('subscribes nothing when the person refuses the permission, and says so', async () => {
    browser.answer = 'denied';
    const api = fakeServer();
    await openDialog('viewer');
    // A viewer cannot list tasks and templates: no choice of them, and no call for them.
    expect(byTestId('push-which')).toBeNull();
    byTestId('push-save')?.click();
    await settle(20);
    expect(byTestId('push-error')?.textContent).toContain(
      'Notifications are blocked for this site',
    );
    expect(browser.subscribeOptions).toEqual([]);
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual([]);
  });

  it('explains instead of subscribing where the page is not a secure context', async () => {
    vi.stubGlobal('isSecureContext', false);
    fakeServer();
    await openDialog();
    expect(byTestId('push-unavailable')?.textContent).toContain('need Herald over HTTPS');
    expect(byTestId('push-save')).toBeNull();
  });

  it('on an iPhone in a Safari tab, says to open Herald from the Home Screen', async () => {
    // Safari in a tab has service workers but no PushManager.
    vi.stubGlobal('PushManager', undefined);
    Reflect.deleteProperty(globalThis, 'PushManager');
    Object.defineProperty(navigator, 'userAgent', {
      configurable: true,
      get: () =>
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    });
    try {
      fakeServer();
      await openDialog();
      expect(byTestId('push-unavailable')?.textContent).toContain('Add to Home Screen');
      expect(byTestId('push-save')).toBeNull();
    } finally {
      Reflect.deleteProperty(navigator, 'userAgent');
    }
  });
});

describe('PushDevices (Account)', () => {
  it('lists the person’s devices with this browser marked, and removes this one with its subscription', async () => {
    browser.subscription = new FakeSubscription(
      ENDPOINT,
      { applicationServerKey: VAPID_BYTES.slice().buffer },
      browser,
    );
    const items = [
      device(4, 'https://push.example/send/phone', 'Phone'),
      {
        ...device(9, ENDPOINT, 'Work laptop'),
        filter: { tasks: [3], templates: 'all' as const, minPriority: 4 },
        lastPushAt: '2026-11-27T09:00:00.000Z',
      },
    ];
    const api = fakeServer({
      'GET /push/subscriptions': () => ok({ items }),
      'DELETE /push/subscriptions/:id': (req) => {
        const id = Number(req.path.split('/').at(-1));
        const at = items.findIndex((d) => d.id === id);
        if (at < 0) return fail(404, 'no such subscription of yours');
        items.splice(at, 1);
        return ok(null);
      },
    });
    const { wrapper } = mountWithApp(PushDevices, {}, createContext('en'));
    await settle(10);

    const other = wrapper.get('[data-testid="push-device"]');
    expect(other.get('[data-testid="push-device-name"]').text()).toBe('Phone');
    expect(other.get('[data-testid="push-device-filter"]').text()).toBe('All messages');
    const here = wrapper.get('[data-testid="push-device-this"]');
    expect(here.text()).toContain('This device');
    expect(here.get('[data-testid="push-device-filter"]').text()).toBe(
      'Tasks: #3; templates: all · priority 4 and above',
    );

    await here.get('[data-testid="push-device-remove"]').trigger('click');
    await settle(10);
    document.querySelector<HTMLElement>('.el-message-box__btns .el-button--primary')?.click();
    await settle(20);

    expect(api.calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual([
      '/push/subscriptions/9',
    ]);
    expect(browser.unsubscribed).toEqual([ENDPOINT]);
    expect(wrapper.findAll('[data-testid="push-device-this"]')).toHaveLength(0);
    expect(wrapper.findAll('[data-testid="push-device"]')).toHaveLength(1);
  });

  it('says when there are no devices yet', async () => {
    fakeServer({ 'GET /push/subscriptions': () => ok({ items: [] }) });
    const { wrapper } = mountWithApp(PushDevices, {}, createContext('zh-CN'));
    await settle(10);
    expect(wrapper.get('[data-testid="account-push-devices"]').text()).toContain('暂无设备。');
  });
});
