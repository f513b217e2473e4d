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

  it('SettingsPage shows delays as minutes and seconds and saves the milliseconds the API takes', async () => {
    const api = installFakeApi({
      'GET /settings': () => ok(settings(false)),
      'PUT /settings': (req) => ok({ ...settings(false), ...(req.body as object) }),
    });
    const { wrapper } = mountWithApp(SettingsPage);
    await settle();
    const field = (id: string) =>
      wrapper.get<HTMLInputElement>(`[data-testid="${id}"] input`).element.value;
    expect(field('settings-base-delay-minutes')).toBe('1');
    expect(field('settings-base-delay-seconds')).toBe('0');
    expect(field('settings-max-delay-minutes')).toBe('16');
    expect(field('settings-v1-wait-minutes')).toBe('0');
    expect(field('settings-v1-wait-seconds')).toBe('15');
    const card = wrapper.get('[data-testid="settings-base-delay"]').element.closest('.el-card')!;
    expect(card.textContent).not.toContain('(ms)');
    expect(
      wrapper.get('[data-testid="settings-base-delay-minutes"] input').attributes('aria-label'),
    ).toBe('First retry after: minutes');

    const type = async (id: string, value: string) => {
      const input = wrapper.get(`[data-testid="${id}"] input`);
      await input.setValue(value);
      await input.trigger('change');
      await settle();
    };
    await type('settings-base-delay-seconds', '30');
    // Seconds past a minute carry into the minutes.
    await type('settings-v1-wait-seconds', '75');
    expect(field('settings-v1-wait-minutes')).toBe('1');
    expect(field('settings-v1-wait-seconds')).toBe('15');
    await type('settings-max-delay-minutes', '2');
    await wrapper.get('[data-testid="settings-save"]').trigger('submit');
    await settle();
    const put = api.calls.filter((c) => c.method === 'PUT').at(-1)!;
    expect(put.body).toMatchObject({
      retry: { baseDelayMs: 90_000, maxDelayMs: 120_000 },
      v1WaitMs: 75_000,
    });
    wrapper.unmount();
  });

  it('SettingsPage labels the duration units in Chinese', async () => {
    installFakeApi({ 'GET /settings': () => ok(settings(false)) });
    const { wrapper } = mountWithApp(SettingsPage, {}, createContext('zh-CN'));
    await settle();
    const delay = wrapper.get('[data-testid="settings-base-delay"]');
    expect(delay.text()).toContain('分');
    expect(delay.text()).toContain('秒');
    expect(
      delay.get('[data-testid="settings-base-delay-seconds"] input').attributes('aria-label'),
    ).toBe('首次重试等待：秒');
    wrapper.unmount();
  });

  it('SettingsPage saves every card the same way: nothing is sent until that card’s Save', async () => {
    const api = installFakeApi({
      'GET /settings': () => ok(settings(false)),
      'PUT /settings': (req) => ok({ ...settings(false), ...(req.body as object) }),
      'GET /maintenance': () =>
        ok({
          sizeBytes: 1,
          freePages: 0,
          rows: { sends: 0, deliveries: 0, attempts: 0, hostedMessages: 0 },
          searchIndexPending: 0,
        }),
      'GET /backup/schedule': () =>
        ok({
          enabled: false,
          everyHours: 24,
          keep: 7,
          folder: '',
          includeKey: true,
          defaultFolder: '/data/backups',
          available: true,
          lastBackupAt: null,
          lastError: null,
        }),
    });
    const { wrapper } = mountWithApp(SettingsPage);
    await settle();
    for (const id of ['settings-show-remote-images', 'settings-require-two-factor']) {
      await wrapper.get(`[data-testid="${id}"]`).trigger('click');
    }
    await settle();
    expect(api.calls.filter((c) => c.method === 'PUT')).toEqual([]);
    // Every card that changes something has its own Save.
    const cards = wrapper.findAll('.el-card');
    const withForm = cards.filter((c) => c.find('form').exists());
    expect(withForm.length).toBeGreaterThanOrEqual(6);
    for (const card of withForm) {
      expect(card.find('form button[type="submit"]').exists()).toBe(true);
    }
    await wrapper.get('[data-testid="settings-reader-save"]').trigger('submit');
    await settle();
    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      { showRemoteImages: true },
    ]);
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
