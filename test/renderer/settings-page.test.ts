import { afterEach, describe, expect, it, vi } from 'vitest';

import SettingsPage from '../../renderer/src/pages/SettingsPage.vue';
import { fail, installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const settings = (allowTaskId: boolean) => ({
  allowTaskId,
  retry: { maxAttempts: 6, baseDelayMs: 60_000, maxDelayMs: 960_000, jitter: 0.2 },
  v1WaitMs: 15_000,
  rateLimitPerMinute: 0,
  publicBaseUrl: '',
  showRemoteImages: false,
  requireTwoFactor: false,
  sendApi: { httpStatus: 'code' },
  about: {
    version: '1.0.0',
    dataDir: '/data',
    listen: 'http://127.0.0.1:8765',
    deliveriesPaused: false,
  },
});

describe('SettingsPage', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('SettingsPage says what accepting task_id exposes, as a warning while it is on', async () => {
    installFakeApi({ 'GET /settings': () => ok(settings(false)) });
    const { wrapper } = mountWithApp(SettingsPage);
    await settle();
    // The test id sits on el-alert's transition; the alert is inside it.
    const risk = () => wrapper.get('[data-testid="settings-task-id-risk"] .el-alert');
    expect(risk().text()).toContain('any web page you open');
    expect(risk().text()).toContain('Give scripts the task token instead');
    expect(risk().classes()).toContain('el-alert--info');
    await wrapper.get('[data-testid="settings-allow-task-id"]').trigger('click');
    await settle();
    expect(risk().classes()).toContain('el-alert--warning');
    wrapper.unmount();
  });

  it('SettingsPage shows the same warning in Chinese', async () => {
    installFakeApi({ 'GET /settings': () => ok(settings(true)) });
    const { wrapper } = mountWithApp(SettingsPage, {}, createContext('zh-CN'));
    await settle();
    const risk = wrapper.get('[data-testid="settings-task-id-risk"] .el-alert');
    expect(risk.text()).toContain('猜中任务的编号');
    expect(risk.classes()).toContain('el-alert--warning');
    wrapper.unmount();
  });

  it('SettingsPage saves the send API block on its own: always200 and the public address', async () => {
    const api = installFakeApi({
      'GET /settings': () => ok(settings(false)),
      'PUT /settings': (req) => {
        const patch = req.body as { publicBaseUrl: string };
        if (patch.publicBaseUrl === 'herald.example.com')
          return fail(400, 'publicBaseUrl: must be an absolute http:// or https:// address');
        return ok({ ...settings(false), ...(req.body as object) });
      },
    });
    const { wrapper } = mountWithApp(SettingsPage);
    await settle();
    const block = wrapper.get('[data-testid="settings-send-api"]');
    expect(block.text()).toContain('raise_for_status');
    expect(
      wrapper.get<HTMLInputElement>('[data-testid="settings-public-base-url"]').element.placeholder,
    ).toBe('http://127.0.0.1:8765');

    await wrapper.get('[data-testid="settings-http-status-always200"] input').setValue(true);
    await wrapper.get('[data-testid="settings-public-base-url"]').setValue('herald.example.com');
    await wrapper.get('[data-testid="settings-send-api-save"]').trigger('submit');
    await settle();
    expect(wrapper.get('[data-testid="settings-send-api-error"]').text()).toMatch(/publicBaseUrl/);

    await wrapper
      .get('[data-testid="settings-public-base-url"]')
      .setValue(' https://herald.example.com ');
    await wrapper.get('[data-testid="settings-send-api-save"]').trigger('submit');
    await settle();
    const puts = api.calls.filter((c) => c.method === 'PUT');
    expect(puts.at(-1)?.body).toEqual({
      sendApi: { httpStatus: 'always200' },
      publicBaseUrl: 'https://herald.example.com',
    });
    expect(wrapper.find('[data-testid="settings-send-api-error"]').exists()).toBe(false);
    wrapper.unmount();
  });
});
