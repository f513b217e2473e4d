import { afterEach, describe, expect, it, vi } from 'vitest';

import type { Channel, ChannelType } from '@contract';

import { CHANNEL_GROUPS, CHANNEL_TYPES } from '../../contract';
import ChannelDialog from '../../renderer/src/components/ChannelDialog.vue';
import en from '../../renderer/src/i18n/en';
import zhCN from '../../renderer/src/i18n/zh-CN';
import { useChannelTypesStore } from '../../renderer/src/stores/channel-types-store';
import { createChannelRegistry } from '../../server/channels/registry';
import {
  ChannelService,
  type ChannelServiceDeps,
} from '../../server/features/channel-config/channel-service';
import { installFakeApi, ok, type FakeRequest } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

/** The kinds exactly as GET /channel-types serves them. */
const SERVED: ChannelType[] = new ChannelService({
  registry: createChannelRegistry(),
} as unknown as ChannelServiceDeps).channelTypes();

const query = <E extends Element = HTMLInputElement>(testid: string) =>
  document.querySelector<E>(`[data-testid="${testid}"]`);
const click = async (testid: string) => {
  const el = query<HTMLElement>(testid);
  if (!el) throw new Error(`no ${testid}`);
  el.click();
  await settle();
};
const type = async (testid: string, value: string) => {
  const input = query(testid)!;
  input.value = value;
  input.dispatchEvent(new Event('input'));
  await settle();
};

const lookup = (dict: object, key: string): unknown =>
  key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], dict);

async function openDialog(channel: Channel | null, locale: 'en' | 'zh-CN' = 'en') {
  const ctx = createContext(locale);
  const { wrapper } = mountWithApp(ChannelDialog, { props: { open: false, channel } }, ctx);
  useChannelTypesStore().types = SERVED;
  await wrapper.setProps({ open: true });
  await settle();
  return wrapper;
}

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('a new channel: the kind first, from a grid', () => {
  it('groups every kind in the declared order, each with its name and summary', async () => {
    await openDialog(null);
    const groups = [...document.querySelectorAll('[data-testid^="channel-kind-group-"]')].map(
      (el) => el.getAttribute('data-testid')!.slice('channel-kind-group-'.length),
    );
    expect(groups).toEqual([...CHANNEL_GROUPS]);
    expect(query('channel-kind-group-chinese')?.textContent).toContain('Chinese platforms');
    const inGroup = (g: string) =>
      [...query(`channel-kind-group-${g}`)!.querySelectorAll('[data-testid^="channel-kind-"]')]
        .map((el) => el.getAttribute('data-testid')!.slice('channel-kind-'.length))
        .filter((id) => !id.startsWith('group-'));
    expect(inGroup('chinese')).toEqual([
      'dingtalk',
      'wecom',
      'wechat_official',
      'feishu',
      'wecom_app',
      'aliyun_sms',
      'pushplus',
      'serverchan',
      'wxpusher',
      'dingtalk-work',
    ]);
    expect(inGroup('email_webhook')).toEqual(['email', 'webhook']);
    expect(inGroup('hosted')).toEqual(['hosted']);
    const webhook = query('channel-kind-webhook')!;
    expect(webhook.textContent).toContain('Custom webhook');
    expect(webhook.textContent).toContain('Any HTTP request');
    expect(webhook.querySelector('svg')).not.toBeNull();
    // Nothing is chosen yet: no form, no Save, no test.
    expect(query('channel-name')).toBeNull();
    expect(query('channel-save')).toBeNull();
    expect(query('channel-dialog-test')).toBeNull();
  });

  it('every group and summary reads in both languages', async () => {
    const keys = [...new Set(SERVED.flatMap((k) => [k.summary, `channelGroups.${k.group}`]))];
    expect(keys).toHaveLength(CHANNEL_TYPES.length + CHANNEL_GROUPS.length);
    for (const dict of [en, zhCN])
      expect(keys.filter((key) => typeof lookup(dict, key) !== 'string')).toEqual([]);
    await openDialog(null, 'zh-CN');
    expect(query('channel-kind-group-push')?.textContent).toContain('推送应用');
    expect(query('channel-kind-bark')?.textContent).toContain('推送到 iPhone');
  });

  it('a kind pressed opens its form; "Change kind" goes back to the grid', async () => {
    const { calls } = installFakeApi({
      'POST /channels': (req) => ok({ id: 3, ...(req.body as object) }),
    });
    await openDialog(null);
    await click('channel-kind-webhook');
    expect(query('channel-type')?.getAttribute('data-type')).toBe('webhook');
    expect(query('channel-config-url')).not.toBeNull();
    await click('channel-change-kind');
    expect(query('channel-config-url')).toBeNull();
    await click('channel-kind-hosted');
    await type('channel-name', 'Inbox');
    await click('channel-save');
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      name: 'Inbox',
      description: '',
      type: 'hosted',
      config: {},
    });
  });

  it('an edit opens on its form, its kind shown and fixed', async () => {
    await openDialog({
      id: 4,
      name: 'ops',
      description: '',
      type: 'hosted',
      config: {},
      usedBy: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(query('channel-kind-picker')).toBeNull();
    expect(query('channel-type')?.textContent).toContain('Hosted message');
    expect(query('channel-change-kind')).toBeNull();
  });
});

describe('the webhook form', () => {
  it('labels the signing secret and puts Generate and the markers beside their fields', async () => {
    for (const [locale, label] of [
      ['en', 'Signing secret'],
      ['zh-CN', '签名密钥'],
    ] as const) {
      await openDialog(null, locale);
      await click('channel-kind-webhook');
      const item = (testid: string) => query(testid)!.closest('.el-form-item')!;
      const signing = item('channel-config-signingSecret');
      expect(signing.querySelector('.el-form-item__label')?.textContent?.trim()).toBe(label);
      expect(signing.textContent).not.toContain('signingSecret');
      expect(signing.contains(query('channel-config-signingSecret-generate'))).toBe(true);
      expect(item('channel-config-body').contains(query('channel-webhook-markers-note'))).toBe(
        true,
      );
      expect(query('channel-webhook-markers-note')?.textContent).toContain('{{title}}');
      document.body.innerHTML = '';
    }
  });

  it('keeps Advanced collapsed, saying how many of its fields are set', async () => {
    await openDialog(null);
    await click('channel-kind-webhook');
    const advanced = query<HTMLElement>('channel-advanced')!;
    expect(advanced.querySelector('.el-collapse-item.is-active')).toBeNull();
    expect(advanced.contains(query('channel-config-proxy'))).toBe(true);
    expect(advanced.contains(query('channel-config-url'))).toBe(false);
    expect(query('channel-advanced-set')).toBeNull();
    await type('channel-config-proxy', 'http://proxy.lan:3128');
    expect(query('channel-advanced-set')?.textContent).toContain('1 set');
    advanced.querySelector<HTMLElement>('.el-collapse-item__header')!.click();
    await settle();
    expect(advanced.querySelector('.el-collapse-item.is-active')).not.toBeNull();
  });

  it('moves the markers under the fields when the body is hidden (GET)', async () => {
    await openDialog(null);
    await click('channel-kind-webhook');
    const note = () => query('channel-webhook-markers-note');
    expect(note()?.closest('.el-form-item')).not.toBeNull();
    const method = query('channel-config-method')!;
    expect(method).not.toBeNull();
    // Picking GET through the select's dropdown.
    method.closest('.el-select')!.querySelector<HTMLElement>('.el-select__wrapper')!.click();
    await settle();
    [...document.querySelectorAll<HTMLElement>('.el-select-dropdown__item')]
      .find((el) => el.textContent?.trim() === 'GET')!
      .click();
    await settle();
    expect(query('channel-config-body')).toBeNull();
    expect(note()).not.toBeNull();
    expect(note()!.closest('.el-form-item')).toBeNull();
  });
});

describe('"Send test" before saving', () => {
  const answer = (req: FakeRequest) =>
    ok({ ok: true, reply: `got ${(req.body as { title: string }).title}`, error: null });

  it('tries a new channel’s form through POST /channels/test, saving nothing', async () => {
    const { calls } = installFakeApi({ 'POST /channels/test': answer });
    await openDialog(null);
    await click('channel-kind-webhook');
    await click('channel-dialog-test');
    // The URL is required: nothing is sent until it is typed.
    expect(query('channel-test-dialog')).toBeNull();
    await vi.waitFor(() => expect(document.body.textContent).toContain('URL is required'));
    await type('channel-config-url', 'https://hooks.example/in');
    await click('channel-dialog-test');
    await vi.waitFor(() => expect(query('channel-test-unsaved-note')).not.toBeNull());
    await click('channel-test-send');
    await vi.waitFor(() => expect(query('channel-test-reply')).not.toBeNull());
    expect(query('channel-test-reply')?.textContent).toBe('got Herald test message');
    const sent = calls.filter((c) => c.method === 'POST');
    expect(sent.map((c) => c.path)).toEqual(['/channels/test']);
    expect(sent[0]!.body).toMatchObject({
      type: 'webhook',
      config: { url: 'https://hooks.example/in', method: 'POST' },
      title: 'Herald test message',
    });
  });

  it('tries an edit of a saved channel with its saved secrets, through its own test route', async () => {
    const { calls } = installFakeApi({ 'POST /channels/:id/test': answer });
    await openDialog({
      id: 9,
      name: 'robot',
      description: '',
      type: 'dingtalk',
      config: { webhookUrl: '******', secret: '' },
      usedBy: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    } as unknown as Channel);
    await click('channel-dialog-test');
    await vi.waitFor(() => expect(query('channel-test-send')).not.toBeNull());
    await click('channel-test-send');
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.path).toBe('/channels/9/test');
    expect((post.body as { config: Record<string, unknown> }).config.webhookUrl).toBe('******');
  });

  it('a kind without fields (hosted) is tried as it is, with no recipient asked', async () => {
    const { calls } = installFakeApi({ 'POST /channels/test': answer });
    await openDialog(null);
    await click('channel-kind-hosted');
    await click('channel-dialog-test');
    await vi.waitFor(() => expect(query('channel-test-send')).not.toBeNull());
    expect(query('channel-test-recipient')).toBeNull();
    await click('channel-test-send');
    await vi.waitFor(() => expect(calls.length).toBe(1));
    expect(calls[0]!.body).toMatchObject({ type: 'hosted', config: {} });
  });
});
