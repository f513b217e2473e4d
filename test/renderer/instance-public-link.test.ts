import { afterEach, describe, expect, it } from 'vitest';

import type { Channel, ChannelKind, ChannelType, Instance } from '@contract';

import InstanceDialog from '../../renderer/src/components/InstanceDialog.vue';
import { useChannelTypesStore } from '../../renderer/src/stores/channel-types-store';
import { useChannelsStore } from '../../renderer/src/stores/channels-store';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const kind = (type: ChannelKind): ChannelType => ({
  type,
  label: type,
  group: 'hosted',
  icon: 'inbox',
  summary: `channelSummary.${type}`,
  contentTypes: ['text', 'markdown'],
  supportsMentions: false,
  supportsDynamicRecipients: false,
  fixedRecipient: 'none',
  instanceTemplateCode: false,
  secretFields: [],
  destinationFields: [],
  fields: [],
  notes: [],
});

const channel = (id: number, type: string) =>
  ({ id, name: `${type}-${id}`, type, config: {} }) as unknown as Channel;

const instance = (channelId: number, type: string, publicLink: boolean): Instance => ({
  id: 7,
  taskId: 1,
  templateId: null,
  channelId,
  channel: { id: channelId, name: `${type}-${channelId}`, type },
  contentType: 'text',
  enabled: true,
  recipient: '',
  dynamicRecipients: false,
  atMobiles: '',
  atAll: false,
  templateCode: null,
  publicLink,
  createdAt: '2026-12-01T10:00:00.000Z',
  updatedAt: '2026-12-01T10:00:00.000Z',
});

async function open(inst: Instance | null, locale: 'en' | 'zh-CN' = 'en') {
  const api = installFakeApi({
    'GET /channel-types': () => ok([kind('hosted'), kind('webhook')]),
    'PATCH /instances/:id': (req) => ok({ ...inst, ...(req.body as object) }),
    'POST /tasks/:id/instances': (req) =>
      ok({ ...instance(1, 'hosted', false), ...(req.body as object) }),
  });
  const ctx = createContext(locale);
  await useChannelTypesStore().load();
  useChannelsStore().items = [channel(1, 'hosted'), channel(2, 'webhook')];
  const { wrapper } = mountWithApp(
    InstanceDialog,
    { props: { open: true, source: { kind: 'task', id: 1 }, instance: inst, siblings: [] } },
    ctx,
  );
  await settle();
  return { wrapper, api };
}

const toggle = () => document.querySelector<HTMLElement>('[data-testid="instance-public-link"]');
const help = () => document.querySelector('[data-testid="instance-public-link-help"]')?.textContent;
const save = async () => {
  document.querySelector<HTMLButtonElement>('[data-testid="instance-save"]')!.click();
  await settle();
};

describe('InstanceDialog: a hosted instance’s public link', () => {
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('shows the setting with what it means, off as stored, and saves it turned on', async () => {
    const { api } = await open(instance(1, 'hosted', false));
    expect(toggle()?.classList.contains('is-checked')).toBe(false);
    expect(help()).toContain('anyone can open without signing in');
    expect(help()).toContain('hostMessageUrl');
    toggle()!.click();
    await settle();
    await save();
    expect(api.calls.find((c) => c.method === 'PATCH')?.body).toMatchObject({ publicLink: true });
  });

  it('an instance that has it on shows it on, and says so in Chinese', async () => {
    await open(instance(1, 'hosted', true), 'zh-CN');
    expect(toggle()?.classList.contains('is-checked')).toBe(true);
    expect(help()).toContain('无需登录');
  });

  it('other kinds have no such setting and never send it on', async () => {
    const { api } = await open(instance(2, 'webhook', false));
    expect(toggle()).toBeNull();
    await save();
    expect(api.calls.find((c) => c.method === 'PATCH')?.body).toMatchObject({ publicLink: false });
  });
});
