import { afterEach, describe, expect, it, vi } from 'vitest';

import SettingsPage from '../../renderer/src/pages/SettingsPage.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const settings = (allowTaskId: boolean) => ({
  allowTaskId,
  retry: { maxAttempts: 6, baseDelayMs: 60_000, maxDelayMs: 960_000, jitter: 0.2 },
  v1WaitMs: 15_000,
  rateLimitPerMinute: 0,
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
});
