import { afterEach, describe, expect, it, vi } from 'vitest';

import SettingsPage from '../../renderer/src/pages/SettingsPage.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const settings = {
  allowTaskId: false,
  retry: { maxAttempts: 6, baseDelayMs: 60_000, maxDelayMs: 960_000, jitter: 0.2 },
  v1WaitMs: 15_000,
  rateLimitPerMinute: 0,
  publicBaseUrl: '',
  showRemoteImages: false,
  requireTwoFactor: false,
  allowPrivateAddresses: false,
  attachments: { maxFileMb: 15, maxFiles: 10, maxTotalMb: 1024, keepDays: 7 },
  sendApi: { httpStatus: 'code' },
  about: {
    version: '1.0.0',
    dataDir: '/data',
    listen: 'http://127.0.0.1:8765',
    deliveriesPaused: false,
  },
};

describe('Settings → Files sent with messages', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('AttachmentsSettingsCard saves the limits and allowPrivateAddresses together', async () => {
    const api = installFakeApi({
      'GET /settings': () => ok(settings),
      'PUT /settings': (req) => ok({ ...settings, ...(req.body as object) }),
    });
    const { wrapper } = mountWithApp(SettingsPage);
    await settle();
    const card = wrapper.get('[data-testid="settings-attachments"]');
    expect(card.text()).toContain('Files sent with messages');
    await wrapper.get('[data-testid="settings-attachments-max-file"] input').setValue('20');
    await wrapper.get('[data-testid="settings-allow-private-addresses"]').trigger('click');
    await wrapper.get('[data-testid="settings-attachments-save"]').trigger('submit');
    await settle();
    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      {
        attachments: { maxFileMb: 20, maxFiles: 10, maxTotalMb: 1024, keepDays: 7 },
        allowPrivateAddresses: true,
      },
    ]);
    wrapper.unmount();
  });

  it('AttachmentsSettingsCard speaks Chinese', async () => {
    installFakeApi({ 'GET /settings': () => ok(settings) });
    const { wrapper } = mountWithApp(SettingsPage, {}, createContext('zh-CN'));
    await settle();
    const card = wrapper.get('[data-testid="settings-attachments"]');
    expect(card.text()).toContain('随消息发送的文件');
    expect(card.text()).toContain('允许从内网地址获取');
    wrapper.unmount();
  });
});
