import { afterEach, describe, expect, it, vi } from 'vitest';
import { ref } from 'vue';

import type { ChannelType } from '@contract';

import { CHANNEL_TYPES } from '../../server/channels/registry';
import ChannelDialog from '../../renderer/src/components/ChannelDialog.vue';
import {
  GenericJsonForm,
  channelForms,
  formFor,
  hasDedicatedForm,
} from '../../renderer/src/components/channels';
import SecretInput from '../../renderer/src/components/channels/SecretInput.vue';
import WebhookForm from '../../renderer/src/components/channels/WebhookForm.vue';
import { useChannelTypesStore } from '../../renderer/src/stores/channel-types-store';
import { installFakeApi, ok } from './helpers/fake-api';
import { mountWithApp, settle } from './helpers/mount';

/** Every kind the server registers, as /channel-types lists them: taken from the registry so a
 * new kind without a console form fails here. */
const KINDS: string[] = [...CHANNEL_TYPES];

const kind = (type: string, extra: Partial<ChannelType> = {}): ChannelType => ({
  type,
  label: type,
  contentTypes: ['text'],
  supportsMentions: false,
  supportsDynamicRecipients: false,
  fixedRecipient: 'none',
  instanceTemplateCode: false,
  secretFields: [],
  destinationFields: [],
  ...extra,
});

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('channel form map', () => {
  it('formFor() has a dedicated form for every kind in the channel-types list', () => {
    const missing = KINDS.filter((type) => !hasDedicatedForm(type));

    expect(missing).toEqual([]);
    for (const type of KINDS) expect(formFor(type)).toBe(channelForms[type]);
  });

  it('formFor() falls back to the JSON editor for a kind the console does not know', () => {
    expect(hasDedicatedForm('pigeon')).toBe(false);
    expect(formFor('pigeon')).toBe(GenericJsonForm);
  });

  it('each form renders its kind’s fields with predictable test ids', () => {
    for (const type of KINDS.filter((t) => t !== 'hosted')) {
      const model = ref<Record<string, unknown>>({});
      const { wrapper } = mountWithApp(formFor(type), {
        props: {
          modelValue: model.value,
          'onUpdate:modelValue': (v: Record<string, unknown>) => (model.value = v),
          secretFields: [],
        },
        global: { stubs: {} },
      });
      expect(wrapper.findAll('[data-testid^="channel-config-"]').length, type).toBeGreaterThan(0);
      wrapper.unmount();
    }
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

describe('ChannelDialog', () => {
  it('ChannelDialog sends "******" back for an untouched secret and the server msg is shown on refusal', async () => {
    const { calls } = installFakeApi({
      'PUT /channels/:id': () => ({
        code: 400,
        msg: 'config: from must be an email address',
        data: null,
      }),
    });
    const { wrapper } = mountWithApp(ChannelDialog, {
      props: {
        open: false,
        channel: {
          id: 7,
          name: 'Mail',
          description: '',
          type: 'email',
          config: {
            host: 'smtp.example.com',
            port: 465,
            secure: 'tls',
            username: 'bot',
            password: '******',
            from: 'bad',
            fromName: '',
          },
          usedBy: [],
          createdAt: '2026-01-01T00:00:00Z',
          updatedAt: '2026-01-01T00:00:00Z',
        },
      },
    });
    useChannelTypesStore().types = [
      kind('email', { secretFields: ['password'], fixedRecipient: 'required' }),
    ];
    await wrapper.setProps({ open: true });
    await settle();

    document.querySelector<HTMLButtonElement>('[data-testid="channel-save"]')!.click();
    await vi.waitFor(() =>
      expect(document.querySelector('[data-testid="channel-error"]')).not.toBeNull(),
    );

    const put = calls.find((c) => c.method === 'PUT');
    expect((put?.body as { config: Record<string, unknown> }).config.password).toBe('******');
    expect(document.querySelector('[data-testid="channel-error"]')?.textContent).toContain(
      'from must be an email address',
    );
  });

  it('ChannelDialog lists the kinds from channel-types', async () => {
    installFakeApi({ 'GET /channel-types': () => ok(KINDS.map((t) => kind(t))) });
    const { wrapper } = mountWithApp(ChannelDialog, { props: { open: false, channel: null } });
    await useChannelTypesStore().load();
    await wrapper.setProps({ open: true });
    await settle();

    expect(useChannelTypesStore().types.map((t) => t.type)).toEqual(KINDS);
    // A new channel starts on the first kind, with that kind's form.
    expect(document.querySelector('[data-testid="channel-config-host"]')).not.toBeNull();
  });

  it('ChannelDialog asks for the secrets again when a destination field changes, and sends them empty', async () => {
    const { calls } = installFakeApi({
      'PUT /channels/:id': () => ({ code: 200, msg: 'success', data: null }),
    });
    const { wrapper } = mountWithApp(ChannelDialog, {
      props: {
        open: false,
        channel: {
          id: 8,
          name: 'Mail',
          description: '',
          type: 'email',
          config: {
            host: 'smtp.example.com',
            port: 465,
            secure: 'tls',
            username: 'bot',
            password: '******',
            from: 'bot@example.com',
            fromName: '',
          },
          usedBy: [],
          createdAt: '2026-01-01T00:00:00Z',
          updatedAt: '2026-01-01T00:00:00Z',
        },
      },
    });
    useChannelTypesStore().types = [
      kind('email', {
        secretFields: ['password'],
        destinationFields: ['host', 'port', 'username'],
        fixedRecipient: 'required',
      }),
    ];
    await wrapper.setProps({ open: true });
    await settle();
    const host = () =>
      document.querySelector<HTMLInputElement>('input[data-testid="channel-config-host"]')!;
    const password = () =>
      document.querySelector<HTMLInputElement>('input[data-testid="channel-config-password"]')!;
    const hint = () => document.querySelector('[data-testid="channel-reenter-secrets"]');
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
    document.querySelector<HTMLButtonElement>('[data-testid="channel-save"]')!.click();
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    const put = calls.find((c) => c.method === 'PUT');
    expect((put?.body as { config: Record<string, unknown> }).config).toMatchObject({
      host: 'smtp.other.example',
      password: '',
    });
  });
});

describe('WebhookForm signing secret', () => {
  it('WebhookForm generates a fresh whsec_ secret of 32 random bytes in the browser', async () => {
    const model = ref<Record<string, unknown>>({ url: 'https://example.com/hook' });
    // The form fills in defaults while mounting, before `wrapper` exists.
    let rerender: ((v: Record<string, unknown>) => void) | null = null;
    const { wrapper } = mountWithApp(WebhookForm, {
      props: {
        modelValue: model.value,
        'onUpdate:modelValue': (v: Record<string, unknown>) => {
          model.value = v;
          rerender?.(v);
        },
        secretFields: ['secretHeaders', 'signingSecret'],
      },
    });
    rerender = (v) => void wrapper.setProps({ modelValue: v });
    await wrapper.setProps({ modelValue: model.value });
    const button = wrapper.get('[data-testid="channel-config-signingSecret-generate"]');
    await button.trigger('click');
    const first = model.value.signingSecret as string;
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(first.slice(6))).toHaveLength(32);
    expect(wrapper.get('[data-testid="channel-config-signingSecret-generated"]').text()).toContain(
      first,
    );
    await button.trigger('click');
    expect(model.value.signingSecret).not.toBe(first);
    expect(model.value.url).toBe('https://example.com/hook');
  });
});
