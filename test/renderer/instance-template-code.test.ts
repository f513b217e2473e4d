import { afterEach, describe, expect, it, vi } from 'vitest';

import type { Channel, ChannelKind, ChannelType, Instance } from '@contract';

import InstanceDialog from '../../renderer/src/components/InstanceDialog.vue';
import { useChannelTypesStore } from '../../renderer/src/stores/channel-types-store';
import { useChannelsStore } from '../../renderer/src/stores/channels-store';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const kind = (type: ChannelKind, extra: Partial<ChannelType> = {}): ChannelType => ({
  type,
  label: type,
  group: 'chinese',
  icon: 'sms',
  summary: `channelSummary.${type}`,
  contentTypes: ['text'],
  supportsMentions: false,
  supportsDynamicRecipients: true,
  fixedRecipient: 'required',
  instanceTemplateCode: false,
  secretFields: [],
  destinationFields: [],
  fields: [],
  notes: [],
  ...extra,
});

const channel = (id: number, type: string, config: Record<string, unknown>) =>
  ({ id, name: `${type}-${id}`, type, config }) as unknown as Channel;

const instance = (channelId: number, type: string, templateCode: string | null) =>
  ({
    id: 7,
    taskId: 1,
    templateId: null,
    channelId,
    channel: { id: channelId, name: `${type}-${channelId}`, type },
    contentType: 'text',
    enabled: true,
    recipient: '13800000000',
    dynamicRecipients: false,
    atMobiles: '',
    atAll: false,
    templateCode,
    createdAt: '2026-11-28T10:00:00.000Z',
    updatedAt: '2026-11-28T10:00:00.000Z',
  }) as Instance;

async function open(inst: Instance, locale: 'en' | 'zh-CN' = 'en') {
  const api = installFakeApi({
    'GET /channel-types': () =>
      ok([kind('aliyun_sms', { instanceTemplateCode: true }), kind('email')]),
    'PATCH /instances/:id': (req) => ok({ ...inst, ...(req.body as object) }),
  });
  const ctx = createContext(locale);
  await useChannelTypesStore().load();
  useChannelsStore().items = [
    channel(1, 'aliyun_sms', { templateCode: 'SMS_100001' }),
    channel(2, 'aliyun_sms', {}),
    channel(3, 'email', {}),
  ];
  const { wrapper } = mountWithApp(
    InstanceDialog,
    { props: { open: true, source: { kind: 'task', id: 1 }, instance: inst, siblings: [] } },
    ctx,
  );
  await settle();
  return { wrapper, api };
}

// Element Plus puts an el-input's attributes on its native input.
const field = () =>
  document.querySelector<HTMLInputElement>('input[data-testid="instance-template-code"]');
const help = () =>
  document.querySelector('[data-testid="instance-template-code-help"]')?.textContent;

describe('InstanceDialog: an Aliyun SMS instance’s own template code', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('shows the channel’s code as the default and saves the instance’s own', async () => {
    const { api } = await open(instance(1, 'aliyun_sms', null));
    expect(field()?.placeholder).toBe('SMS_100001');
    expect(help()).toContain('channel’s template code (SMS_100001)');
    field()!.value = 'SMS_300003';
    field()!.dispatchEvent(new Event('input'));
    await settle();
    document.querySelector<HTMLButtonElement>('[data-testid="instance-save"]')!.click();
    await settle();
    const patch = api.calls.find((c) => c.method === 'PATCH');
    expect(patch?.body).toMatchObject({ templateCode: 'SMS_300003' });
  });

  it('says an instance of a channel without a code needs its own, in Chinese too', async () => {
    await open(instance(2, 'aliyun_sms', 'SMS_300003'), 'zh-CN');
    expect(field()?.value).toBe('SMS_300003');
    expect(help()).toContain('渠道没有设置模板 CODE');
  });

  it('clears the code to null and has no such field on other kinds', async () => {
    const { api } = await open(instance(1, 'aliyun_sms', 'SMS_300003'));
    field()!.value = '';
    field()!.dispatchEvent(new Event('input'));
    await settle();
    document.querySelector<HTMLButtonElement>('[data-testid="instance-save"]')!.click();
    await settle();
    expect(api.calls.find((c) => c.method === 'PATCH')?.body).toMatchObject({
      templateCode: null,
    });
    document.body.innerHTML = '';
    await open(instance(3, 'email', null));
    expect(field()).toBeNull();
  });
});
