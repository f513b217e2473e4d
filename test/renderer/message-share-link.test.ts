// @vitest-environment jsdom
// DOMPurify (MessageContent) needs a DOM whose tree walk it supports (see render-content.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { HostedMessage } from '@contract';

import MessageDrawer from '../../renderer/src/components/MessageDrawer.vue';
import { useMessagesStore } from '../../renderer/src/stores/messages-store';
import { installFakeApi, ok } from './helpers/fake-api';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

const LINK = 'http://127.0.0.1:8765/preview/aB3dE5gH7jK9mN1pQr_s-w';

const detail = (previewUrl: string | null) => ({
  id: 7,
  channelId: 1,
  title: 'Disk alert',
  content: 'disk at 98%',
  excerpt: 'disk at 98%',
  format: 'text',
  url: null,
  previewUrl,
  read: true,
  priority: null,
  createdAt: '2026-12-01T08:00:00.000Z',
  updatedAt: '2026-12-01T08:00:00.000Z',
  safeHtml: '<pre class="herald-text">disk at 98%</pre>',
  showRemoteImages: false,
});

let copied: string[];

beforeEach(() => {
  copied = [];
  vi.stubGlobal('isSecureContext', true);
  Object.defineProperty(navigator, 'clipboard', {
    configurable: true,
    value: { writeText: (text: string) => Promise.resolve(void copied.push(text)) },
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('MessageDrawer share link', () => {
  it('"Share" creates the link of a message that has none, shows it shared and copies it', async () => {
    const api = installFakeApi({
      'GET /messages/:id': () => ok(detail(null)),
      'POST /messages/:id/link': () => ok({ previewUrl: LINK }),
    });
    const { wrapper } = mountWithApp(MessageDrawer, { props: { messageId: 7 } }, signedInContext());
    // The reader's list holds the same message, not shared yet.
    const store = useMessagesStore();
    const { safeHtml: _html, showRemoteImages: _images, ...row } = detail(null);
    store.items.push(row as HostedMessage);
    await settle(10);
    const button = () => document.querySelector('[data-testid="message-copy-link"]') as HTMLElement;
    expect(document.querySelector('[data-testid="message-revoke-link"]')).toBeNull();
    expect(document.querySelector('[data-testid="message-shared"]')).toBeNull();
    expect(document.querySelector('[data-testid="message-not-shared"]')?.textContent).toContain(
      'only people signed in',
    );
    expect(button().textContent?.trim()).toBe('Share');
    button().click();
    await settle(10);
    expect(api.calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      '/messages/7/link',
    ]);
    expect(copied).toEqual([LINK]);
    expect(document.querySelector('[data-testid="message-share-url"]')?.textContent).toBe(LINK);
    expect(document.querySelector('[data-testid="message-shared"]')?.textContent).toBe('Shared');
    expect(button().textContent?.trim()).toBe('Copy link');
    // The list's row is marked shared without a reload.
    expect(store.items[0].previewUrl).toBe(LINK);
    // Copying again reuses the link rather than asking for another.
    (document.querySelector('[data-testid="message-copy-link"]') as HTMLElement).click();
    await settle(10);
    expect(api.calls.filter((c) => c.method === 'POST')).toHaveLength(1);
    expect(copied).toEqual([LINK, LINK]);
    wrapper.unmount();
  });

  it('"Revoke link" asks first, then revokes and hides the link', async () => {
    const api = installFakeApi({
      'GET /messages/:id': () => ok(detail(LINK)),
      'DELETE /messages/:id/link': () => ok(null),
    });
    const { wrapper } = mountWithApp(MessageDrawer, { props: { messageId: 7 } }, signedInContext());
    await settle(10);
    expect(document.querySelector('[data-testid="message-share-url"]')?.textContent).toBe(LINK);
    (document.querySelector('[data-testid="message-revoke-link"]') as HTMLElement).click();
    await settle(10);
    const box = document.querySelector('.el-message-box');
    expect(box?.textContent).toContain('can no longer open the message');
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    (box?.querySelector('.el-message-box__btns .el-button--primary') as HTMLElement).click();
    await vi.waitFor(() =>
      expect(api.calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual([
        '/messages/7/link',
      ]),
    );
    await settle(10);
    expect(document.querySelector('[data-testid="message-share-url"]')).toBeNull();
    expect(document.querySelector('[data-testid="message-revoke-link"]')).toBeNull();
    wrapper.unmount();
  });
});
