// @vitest-environment jsdom
// DOMPurify (MessageContent) needs a DOM whose tree walk it supports (see render-content.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryHistory } from 'vue-router';

import { previewKeyOfHash } from '../../renderer/src/api/public-api';
import PreviewPage from '../../renderer/src/pages/PreviewPage.vue';
import { createAppRouter } from '../../renderer/src/router';
import { useSessionStore } from '../../renderer/src/stores/session-store';
import { fail, installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const KEY = 'aB3dE5gH7jK9mN1pQr_s-w';

const preview = {
  title: 'Disk alert',
  content: '**web-3** <script>x()</script>',
  format: 'markdown',
  url: 'https://status.example.com',
  safeHtml: '<p><strong>web-3</strong> </p>',
  createdAt: '2026-12-01T08:00:00.000Z',
};

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('previewKeyOfHash()', () => {
  it("previewKeyOfHash() reads Message Nest's #/preview/<key> and nothing else", () => {
    expect(previewKeyOfHash('#/preview/aB3dE5gH7jK9mN1p')).toBe('aB3dE5gH7jK9mN1p');
    expect(previewKeyOfHash('#/preview/aB3dE5gH7jK9mN1p/')).toBe('aB3dE5gH7jK9mN1p');
    expect(previewKeyOfHash('#/preview/a%2Db')).toBe('a-b');
    expect(previewKeyOfHash('#/preview/')).toBeNull();
    expect(previewKeyOfHash('#/messages')).toBeNull();
    expect(previewKeyOfHash('#/preview/a/b')).toBeNull();
    expect(previewKeyOfHash('')).toBeNull();
  });
});

describe('the share-link route', () => {
  it('the router sends /#/preview/<key> to /preview/<key> without asking for a session', async () => {
    const api = installFakeApi({});
    createContext();
    // A visitor without a session: the guard must not look one up for a preview.
    useSessionStore().restored = false;
    const router = createAppRouter(createMemoryHistory());
    await router.push(`/#/preview/${KEY}`);
    expect(router.currentRoute.value.name).toBe('preview');
    expect(router.currentRoute.value.fullPath).toBe(`/preview/${KEY}`);
    expect(router.currentRoute.value.params.key).toBe(KEY);
    expect(api.calls).toEqual([]);
  });

  it('the router opens /preview/<key> for a visitor who is not signed in', async () => {
    const api = installFakeApi({});
    createContext();
    useSessionStore().restored = false;
    const router = createAppRouter(createMemoryHistory());
    await router.push(`/preview/${KEY}`);
    expect(router.currentRoute.value.name).toBe('preview');
    expect(api.calls).toEqual([]);
    // Every console page still needs a session (the guard asks who is signed in).
    installFakeApi({ 'GET /status': () => ok({ setupRequired: false, user: null }) });
    await router.push('/messages');
    expect(router.currentRoute.value.name).toBe('sign-in');
  });
});

describe('PreviewPage', () => {
  async function mountAt(path: string) {
    const ctx = createContext('en');
    await ctx.router.push(path);
    const { wrapper } = mountWithApp(PreviewPage, {}, ctx);
    await settle(10);
    return wrapper;
  }

  it('PreviewPage shows the message alone, from the server-sanitised HTML', async () => {
    const api = installFakeApi({ 'GET /api/public/preview/:key': () => ok(preview) });
    const wrapper = await mountAt(`/preview/${KEY}`);
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET /api/public/preview/${KEY}`,
    ]);
    // No session cookie is sent with a public preview.
    expect(api.calls[0].credentials).toBe('omit');
    expect(wrapper.get('[data-testid="message-title"]').text()).toBe('Disk alert');
    expect(wrapper.get('[data-testid="message-url"]').attributes('href')).toBe(
      'https://status.example.com',
    );
    const content = wrapper.get('[data-testid="message-content"]');
    expect(content.html()).toContain('<strong>web-3</strong>');
    expect(content.html()).not.toContain('<script');
    // No console chrome: no navigation menu, no sign-out.
    expect(wrapper.find('.el-menu').exists()).toBe(false);
    wrapper.unmount();
  });

  it('PreviewPage says a revoked or unknown link opens nothing, and when to retry a 429', async () => {
    installFakeApi({
      'GET /api/public/preview/:key': () =>
        fail(404, 'no message has this link: it was revoked, deleted or mistyped'),
    });
    const gone = await mountAt(`/preview/${KEY}`);
    expect(gone.get('[data-testid="preview-error"]').text()).toMatch(/was revoked/);
    expect(gone.find('[data-testid="message-title"]').exists()).toBe(false);
    gone.unmount();

    installFakeApi({
      'GET /api/public/preview/:key': () => fail(429, 'too many previews from this address'),
    });
    const limited = await mountAt(`/preview/${KEY}`);
    expect(limited.get('[data-testid="preview-error"]').text()).toMatch(/Wait a minute/);
    limited.unmount();
  });
});
