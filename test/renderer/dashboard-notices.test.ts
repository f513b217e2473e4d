import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import DashboardNotices from '../../renderer/src/components/DashboardNotices.vue';
import { FakeEventSource } from './helpers/fake-event-source';
import { fail, installFakeApi, ok } from './helpers/fake-api';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

/** The notice as the server answers it behind nginx without publicBaseUrl. */
const proxyNotice = {
  code: 'publicBaseUrlUnset',
  host: 'herald.example.com',
  linksStartWith: 'http://127.0.0.1:8765',
  suggested: 'https://herald.example.com',
  setting: 'publicBaseUrl',
};

beforeEach(() => vi.stubGlobal('EventSource', FakeEventSource));
afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

async function mountNotices(
  answer: () => ReturnType<typeof ok>,
  role: 'admin' | 'viewer' = 'admin',
  locale: 'en' | 'zh-CN' = 'en',
) {
  const api = installFakeApi({ 'GET /stats/notices': answer });
  const { wrapper } = mountWithApp(DashboardNotices, {}, signedInContext(role, locale));
  await settle();
  return { wrapper, api };
}

describe('the dashboard’s notices', () => {
  it('names the proxy’s host, where links point now, the value to set and where', async () => {
    const { wrapper, api } = await mountNotices(() => ok([proxyNotice]));
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toContain('GET /stats/notices');
    const notice = wrapper.get('[data-testid="dashboard-notice-publicBaseUrlUnset"]');
    expect(notice.text()).toContain('Links point at Herald’s own address');
    expect(notice.text()).toContain(
      'Requests reach Herald through a reverse proxy as herald.example.com, but no public address (publicBaseUrl) is set',
    );
    expect(notice.text()).toContain('start with http://127.0.0.1:8765');
    expect(notice.text()).toContain('Set the public address to https://herald.example.com.');
    // An administrator gets the way to the setting.
    const link = wrapper.get('[data-testid="dashboard-notice-settings"]');
    expect(link.text()).toBe('Settings → Send API answers and share links → Public address');
    expect(link.attributes('href')).toBe('/settings');
  });

  it('tells someone who cannot change settings who can', async () => {
    const { wrapper } = await mountNotices(() => ok([proxyNotice]), 'viewer');
    expect(wrapper.find('[data-testid="dashboard-notice-settings"]').exists()).toBe(false);
    expect(wrapper.text()).toContain('An administrator sets it in Settings');
  });

  it('says it in Chinese', async () => {
    const { wrapper } = await mountNotices(() => ok([proxyNotice]), 'admin', 'zh-CN');
    const text = wrapper.get('[data-testid="dashboard-notice-publicBaseUrlUnset"]').text();
    expect(text).toContain('链接指向 Herald 自身的地址');
    expect(text).toContain('以 herald.example.com 到达 Herald');
    expect(text).toContain('请将公开访问地址设为 https://herald.example.com');
    expect(text).toContain('公开访问地址');
  });

  it('shows nothing when there is nothing to say, or the server does not answer', async () => {
    const quiet = await mountNotices(() => ok([]));
    expect(quiet.wrapper.find('[data-testid="dashboard-notices"]').exists()).toBe(false);
    document.body.innerHTML = '';
    const down = await mountNotices(() => fail(500, 'down'));
    expect(down.wrapper.find('[data-testid="dashboard-notices"]').exists()).toBe(false);
  });
});
