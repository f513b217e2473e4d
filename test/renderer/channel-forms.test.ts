import { afterEach, describe, expect, it, vi } from 'vitest';
import { ref } from 'vue';
import type { z } from 'zod';

import type { Channel, ChannelKind, ChannelType } from '@contract';

import { CHANNEL_TYPES } from '../../contract';
import ChannelDialog from '../../renderer/src/components/ChannelDialog.vue';
import ChannelConfigForm from '../../renderer/src/components/channels/ChannelConfigForm.vue';
import SecretInput from '../../renderer/src/components/channels/SecretInput.vue';
import SigningSecretInput from '../../renderer/src/components/channels/SigningSecretInput.vue';
import en from '../../renderer/src/i18n/en';
import { useChannelTypesStore } from '../../renderer/src/stores/channel-types-store';
import { createChannelRegistry } from '../../server/channels/registry';
import { maskSecrets } from '../../server/features/channel-config/channel-secrets';
import {
  ChannelService,
  type ChannelServiceDeps,
} from '../../server/features/channel-config/channel-service';
import { maskProxy } from '../../server/features/channel-config/proxy-credentials';
import { CHANNEL_SAMPLES } from '../fixtures/channel-samples';
import { installFakeApi, ok } from './helpers/fake-api';
import { mountWithApp, settle } from './helpers/mount';

const registry = createChannelRegistry();

/** The kinds exactly as GET /channel-types serves them: the server's own description. */
const SERVED: ChannelType[] = new ChannelService({
  registry,
} as unknown as ChannelServiceDeps).channelTypes();
const served = (type: ChannelKind): ChannelType => SERVED.find((k) => k.type === type)!;

/** A sample channel of a kind as GET /channels/:id answers it: parsed, secrets masked. */
function answerOf(type: ChannelKind, id = 1): Channel {
  const adapter = registry[type];
  const stored = adapter.configSchema.parse(CHANNEL_SAMPLES[type]) as Record<string, unknown>;
  return {
    id,
    name: `${type} channel`,
    description: 'a sample',
    type,
    config: maskProxy(maskSecrets(stored, adapter.secretFields)),
    usedBy: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  } as unknown as Channel;
}

/** Opens the channel dialog on `channel` (null: a new one), with the served kinds loaded. */
async function openDialog(channel: Channel | null) {
  const { wrapper } = mountWithApp(ChannelDialog, { props: { open: false, channel } });
  useChannelTypesStore().types = SERVED;
  await wrapper.setProps({ open: true });
  await settle();
  return wrapper;
}

const query = <E extends Element = HTMLInputElement>(testid: string) =>
  document.querySelector<E>(`[data-testid="${testid}"]`);

/** Looks an i18n key up in the English dictionary. */
const english = (key: string): unknown =>
  key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], en);

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('the channel form, drawn from GET /channel-types', () => {
  it.each(CHANNEL_TYPES)(
    'ChannelConfigForm draws every field %s declares, and no other',
    async (type) => {
      const kind = served(type);
      const { wrapper } = mountWithApp(ChannelConfigForm, {
        props: { modelValue: answerOf(type).config, kind, editing: true },
      });
      await settle();
      const keys = kind.fields.map((f) => f.key);
      for (const key of keys)
        expect(wrapper.find(`[data-testid="channel-config-${key}"]`).exists(), key).toBe(true);
      // Parts of a field add a suffix to its test id (a secret's Clear, a map's rows).
      const drawn = wrapper
        .findAll('[data-testid^="channel-config-"]')
        .map((el) => el.attributes('data-testid')!.slice('channel-config-'.length));
      const strays = drawn.filter(
        (id) => !keys.some((key) => id === key || id.startsWith(`${key}-`)),
      );
      expect(strays).toEqual([]);
      // …and they are the adapter's: what the form edits is what the server parses.
      expect(keys).toEqual(Object.keys((registry[type].configSchema as z.ZodObject).shape));
      wrapper.unmount();
    },
  );

  it.each(CHANNEL_TYPES)(
    'ChannelDialog saves a %s channel left untouched exactly as GET answered it',
    async (type) => {
      const channel = answerOf(type);
      const { calls } = installFakeApi({ 'PUT /channels/:id': () => ok(channel) });
      await openDialog(channel);

      query<HTMLButtonElement>('channel-save')!.click();
      await vi.waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));

      expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({
        name: channel.name,
        description: channel.description,
        type,
        config: channel.config,
      });
    },
  );

  it('every label, help line, choice and note of every kind is in the dictionary', () => {
    const keys = SERVED.flatMap((kind) => [
      `channelTypes.${kind.type}`,
      ...kind.fields.flatMap((f) => [
        f.label,
        ...(f.help ? [f.help] : []),
        ...(f.keyLabel ? [f.keyLabel] : []),
        ...(f.addLabel ? [f.addLabel] : []),
        // Choices are i18n keys where they name one, else shown as written (ntfy's "high").
        ...(f.options ?? []).map((o) => o.label).filter((label) => label.includes('.')),
      ]),
      ...kind.notes.map((n) => n.text),
    ]);
    expect(keys.filter((key) => typeof english(key) !== 'string')).toEqual([]);
  });

  it('a new channel’s form starts from the declared form defaults', async () => {
    const { calls } = installFakeApi({ 'POST /channels': () => ok(answerOf('email')) });
    await openDialog(null);
    query<HTMLButtonElement>('channel-kind-email')!.click();
    await settle();
    expect(query('channel-config-port')).not.toBeNull();
    const name = query('channel-name')!;
    name.value = 'mail';
    name.dispatchEvent(new Event('input'));
    for (const [key, value] of [
      ['host', 'smtp.example.com'],
      ['from', 'bot@example.com'],
    ]) {
      const input = query(`channel-config-${key}`)!;
      input.value = value;
      input.dispatchEvent(new Event('input'));
      await settle();
    }
    await settle();
    query<HTMLButtonElement>('channel-save')!.click();
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      name: 'mail',
      description: '',
      type: 'email',
      config: { host: 'smtp.example.com', port: 465, secure: 'tls', from: 'bot@example.com' },
    });
  });

  it('a field shows only while the field it depends on allows it', async () => {
    const model = ref<Record<string, unknown>>({ url: 'https://example.com', method: 'POST' });
    const { wrapper } = mountWithApp(ChannelConfigForm, {
      props: {
        modelValue: model.value,
        'onUpdate:modelValue': (v: Record<string, unknown>) => (model.value = v),
        kind: served('webhook'),
        editing: true,
      },
    });
    expect(wrapper.find('[data-testid="channel-config-body"]').exists()).toBe(true);
    // A GET sends no body.
    await wrapper.setProps({ modelValue: { ...model.value, method: 'GET' } });
    expect(wrapper.find('[data-testid="channel-config-body"]').exists()).toBe(false);

    await wrapper.setProps({ kind: served('email'), modelValue: { username: '' } });
    expect(wrapper.find('[data-testid="channel-config-password"]').exists()).toBe(false);
    await wrapper.setProps({ modelValue: { username: 'bot' } });
    expect(wrapper.find('[data-testid="channel-config-password"]').exists()).toBe(true);
  });

  it('ntfy shows a stored priority by its name and stored tags as tags', async () => {
    const { wrapper } = mountWithApp(ChannelConfigForm, {
      props: { modelValue: answerOf('ntfy').config, kind: served('ntfy'), editing: true },
    });
    await settle();
    // Stored as 4 (the sample sent "high"); the form used to show a bare "4".
    expect(wrapper.get('[data-testid="channel-config-priority"]').text()).toBe('high');
    expect(wrapper.get('[data-testid="channel-config-tags"]').text()).toContain('warning');
    expect(wrapper.get('[data-testid="channel-config-tags"]').text()).toContain('robot');
  });

  it('a kind without fields shows its note: hosted messages', async () => {
    await openDialog(answerOf('hosted'));
    expect(query('channel-hosted-note')?.textContent).toContain('need no settings');
    expect(document.querySelector('[data-testid^="channel-config-"]')).toBeNull();
  });
});

describe('SecretInput', () => {
  it('SecretInput keeps a masked secret unless the user types or clears it', async () => {
    const value = ref('******');
    const { wrapper } = mountWithApp(SecretInput, {
      props: {
        modelValue: value.value,
        'onUpdate:modelValue': (v: string) => (value.value = v),
        testid: 'channel-config-password',
        label: 'Password',
      },
    });
    const input = wrapper.get('input[data-testid="channel-config-password"]');

    expect((input.element as HTMLInputElement).value).toBe('');
    expect(input.attributes('placeholder')).toContain('******');

    await wrapper.get('[data-testid="channel-config-password-clear"]').trigger('click');
    expect(value.value).toBe('');

    await input.setValue('n3w-s3cret');
    expect(value.value).toBe('n3w-s3cret');
  });
});

describe('SigningSecretInput', () => {
  it('SigningSecretInput generates a fresh whsec_ secret of 32 random bytes in the browser', async () => {
    const value = ref('');
    const { wrapper } = mountWithApp(SigningSecretInput, {
      props: {
        modelValue: value.value,
        'onUpdate:modelValue': (v: string) => (value.value = v),
        testid: 'channel-config-signingSecret',
        label: 'Signing secret',
      },
    });
    const button = wrapper.get('[data-testid="channel-config-signingSecret-generate"]');
    await button.trigger('click');
    const first = value.value;
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(first.slice(6))).toHaveLength(32);
    expect(wrapper.get('[data-testid="channel-config-signingSecret-generated"]').text()).toContain(
      first,
    );
    await button.trigger('click');
    expect(value.value).not.toBe(first);
  });
});

describe('ChannelDialog', () => {
  it('ChannelDialog sends "******" back for an untouched secret and the server msg is shown on refusal', async () => {
    const { calls } = installFakeApi({
      'PUT /channels/:id': () => ({
        code: 400,
        msg: 'config: from: from must be an email address',
        data: null,
      }),
    });
    await openDialog(answerOf('email', 7));

    query<HTMLButtonElement>('channel-save')!.click();
    await vi.waitFor(() => expect(query('channel-error')).not.toBeNull());

    const put = calls.find((c) => c.method === 'PUT');
    expect((put?.body as { config: Record<string, unknown> }).config.password).toBe('******');
    expect(query('channel-error')?.textContent).toContain('from must be an email address');
  });

  it('ChannelDialog lists the kinds from channel-types', async () => {
    installFakeApi({ 'GET /channel-types': () => ok(SERVED) });
    const { wrapper } = mountWithApp(ChannelDialog, { props: { open: false, channel: null } });
    await useChannelTypesStore().load();
    await wrapper.setProps({ open: true });
    await settle();

    expect(useChannelTypesStore().types.map((t) => t.type)).toEqual([...CHANNEL_TYPES]);
    // A new channel starts on the grid of every kind, none chosen and nothing to save yet.
    for (const type of CHANNEL_TYPES) expect(query(`channel-kind-${type}`), type).not.toBeNull();
    expect(document.querySelector('[data-testid^="channel-config-"]')).toBeNull();
    expect(query('channel-save')).toBeNull();
    query<HTMLButtonElement>('channel-kind-email')!.click();
    await settle();
    expect(query('channel-config-host')).not.toBeNull();
    expect(query('channel-type')?.getAttribute('data-type')).toBe('email');
  });

  it('ChannelDialog asks for the secrets again when a destination field changes, and sends them empty', async () => {
    const { calls } = installFakeApi({ 'PUT /channels/:id': () => ok(answerOf('email', 8)) });
    await openDialog(answerOf('email', 8));
    const host = () => query('channel-config-host')!;
    const password = () => query('channel-config-password')!;
    const hint = () => query('channel-reenter-secrets');
    expect(hint()).toBeNull();
    expect(password().placeholder).toContain('******');

    host().value = 'smtp.attacker.example';
    host().dispatchEvent(new Event('input'));
    await settle();
    expect(hint()?.textContent).toContain('You changed host: type password again');
    expect(password().placeholder).toBe('Not set');

    // Back to the saved host: the saved password is kept again.
    host().value = 'smtp.example.com';
    host().dispatchEvent(new Event('input'));
    await settle();
    expect(hint()).toBeNull();
    expect(password().placeholder).toContain('******');

    host().value = 'smtp.other.example';
    host().dispatchEvent(new Event('input'));
    await settle();
    query<HTMLButtonElement>('channel-save')!.click();
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    const put = calls.find((c) => c.method === 'PUT');
    expect((put?.body as { config: Record<string, unknown> }).config).toMatchObject({
      host: 'smtp.other.example',
      password: '',
    });
  });
});
