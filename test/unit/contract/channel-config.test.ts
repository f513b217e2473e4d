import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  CHANNEL_CONFIGS,
  CHANNEL_TYPES,
  channelCreateBody,
  channelSchema,
  channelUpdateBody,
  declareChannelConfig,
  describeChannelConfig,
} from '../../../contract';
import { CHANNEL_SAMPLES } from '../../fixtures/channel-samples';

const messages = (result: { error?: z.ZodError }) =>
  result.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

describe('channelCreateBody', () => {
  it('channelCreateBody accepts every kind’s sample and passes its config on as sent', () => {
    for (const type of CHANNEL_TYPES) {
      const body = { name: 'x', type, config: CHANNEL_SAMPLES[type] };
      const parsed = channelCreateBody.parse(body);
      // Parsing is the server's: defaults and normalising happen there, against what it stores.
      expect(parsed.config, type).toStrictEqual(body.config);
    }
  });

  it('channelCreateBody names a missing or unknown type as the server always has', () => {
    expect(messages(channelCreateBody.safeParse({ name: 'x' }))).toEqual(['type: is required']);
    expect(messages(channelCreateBody.safeParse({ name: 'x', type: 'pigeon' }))).toEqual([
      `type: unknown channel type "pigeon"; one of ${CHANNEL_TYPES.join(', ')}`,
    ]);
  });

  it('channelCreateBody refuses a field the kind does not have, and a bad value, by name', () => {
    const config = { ...CHANNEL_SAMPLES.gotify, colour: 'teal', priority: 11 };
    expect(messages(channelCreateBody.safeParse({ name: 'x', type: 'gotify', config }))).toEqual([
      'config: priority: Too big: expected number to be <=10',
      'config: Unrecognized key: "colour"',
    ]);
  });
});

describe('channelUpdateBody', () => {
  it('channelUpdateBody keeps secrets left out, masked or cleared as sent', () => {
    const config = { host: 'smtp.example.com', port: 465, secure: 'tls', from: 'a@b.example' };
    for (const password of [undefined, '******', '']) {
      const edit = password === undefined ? config : { ...config, password };
      const parsed = channelUpdateBody.parse({ type: 'email', config: edit }) as {
        config: Record<string, unknown>;
      };
      // A default filled in here ("" for a missing password) would clear the stored secret.
      expect(parsed.config).toStrictEqual(edit);
      expect(parsed.config.password).toBe(password);
    }
  });

  it('channelUpdateBody checks config against the kind that `type` names', () => {
    const config = { ...CHANNEL_SAMPLES.telegram, botToken: '******', chatId: 'not a chat' };
    expect(messages(channelUpdateBody.safeParse({ type: 'telegram', config }))).toEqual([
      'config: chatId: chatId must be a numeric chat id (e.g. -1001234567890) or @channelusername',
    ]);
    // Without `type` the kind is the stored one: the server checks it.
    expect(channelUpdateBody.safeParse({ config }).success).toBe(true);
    expect(messages(channelUpdateBody.safeParse({ type: 'pigeon' }))).toEqual([
      `type: unknown channel type "pigeon"; one of ${CHANNEL_TYPES.join(', ')}`,
    ]);
  });
});

describe('channelSchema', () => {
  it('channelSchema types config by `type`: another kind’s fields are refused', () => {
    const answer = {
      id: 1,
      name: 'x',
      description: '',
      usedBy: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    const slack = { webhookUrl: '******', mentionAtUrgent: true };
    expect(channelSchema.safeParse({ ...answer, type: 'slack', config: slack }).success).toBe(true);
    expect(messages(channelSchema.safeParse({ ...answer, type: 'hosted', config: slack }))).toEqual(
      ['config: Unrecognized keys: "webhookUrl", "mentionAtUrgent"'],
    );
  });
});

describe('describeChannelConfig()', () => {
  it('describeChannelConfig() joins each field’s schema and declaration', () => {
    const { fields, notes } = describeChannelConfig(CHANNEL_CONFIGS.email);
    const byKey = Object.fromEntries(fields.map((f) => [f.key, f]));

    expect(fields.map((f) => f.key)).toEqual(Object.keys(CHANNEL_CONFIGS.email.schema.shape));
    expect(byKey.port).toMatchObject({ input: 'number', required: true, min: 1, max: 65535 });
    expect(byKey.port.formDefault).toBe(465);
    expect(byKey.secure).toMatchObject({ input: 'select', required: true });
    expect(byKey.secure.options?.map((o) => o.value)).toEqual(['tls', 'starttls', 'none']);
    expect(byKey.password).toMatchObject({ input: 'secret', secret: true, required: false });
    expect(byKey.password.dependsOn).toEqual({ key: 'username', set: true });
    expect(byKey.host).toMatchObject({ destination: true, label: 'channelConfig.host' });
    expect(byKey.fromName.default).toBe('');
    expect(notes).toEqual([]);
  });

  it('describeChannelConfig() takes a placeholder from the default, and bounds from .positive()', () => {
    const { fields } = describeChannelConfig(CHANNEL_CONFIGS.telegram);
    const byKey = Object.fromEntries(fields.map((f) => [f.key, f]));
    expect(byKey.serverUrl).toMatchObject({
      input: 'url',
      placeholder: 'https://api.telegram.org',
    });
    expect(byKey.messageThreadId).toMatchObject({ input: 'number', min: 1, max: null });
    expect(byKey.disableNotification.input).toBe('switch');
  });

  it('describeChannelConfig() refuses a field no console input can edit', () => {
    const nested = declareChannelConfig({
      schema: z.object({ deep: z.object({ a: z.string() }).array() }).strict(),
      fields: { deep: {} },
    });
    expect(() => describeChannelConfig(nested)).toThrow(/config field deep: no console input/);
  });

  it('describeChannelConfig() places a note under the field it explains, and refuses an unknown one', () => {
    const { notes } = describeChannelConfig(CHANNEL_CONFIGS.webhook);
    expect(notes).toEqual([expect.objectContaining({ id: 'webhook-markers', field: 'body' })]);
    expect(describeChannelConfig(CHANNEL_CONFIGS.hosted).notes[0]?.field).toBeNull();
    const astray = declareChannelConfig({
      schema: z.object({ a: z.string() }).strict(),
      fields: { a: {} },
      notes: [{ id: 'n', text: 'x', tone: 'hint', field: 'b' }],
    });
    expect(() => describeChannelConfig(astray)).toThrow(/note n: no config field b/);
  });

  it('describeChannelConfig() refuses select options that are not the schema’s values', () => {
    const drifted = declareChannelConfig({
      schema: z.object({ mode: z.enum(['a', 'b']) }).strict(),
      fields: { mode: { options: [{ value: 'a', label: 'A' }] } },
    });
    expect(() => describeChannelConfig(drifted)).toThrow(/options a are not the schema's/);
  });
});

describe('declareChannelConfig()', () => {
  it('declareChannelConfig() wants exactly one field entry per config key (a compile error otherwise)', () => {
    const schema = z.object({ a: z.string(), b: z.string() }).strict();
    // @ts-expect-error -- `b` has no entry
    declareChannelConfig({ schema, fields: { a: {} } });
    // @ts-expect-error -- `c` is no key of the schema
    declareChannelConfig({ schema, fields: { a: {}, b: {}, c: {} } });
    const declared = declareChannelConfig({
      schema,
      fields: { a: { secret: true }, b: { destination: true } },
    });
    expect([declared.secretFields, declared.destinationFields]).toEqual([['a'], ['b']]);
  });
});
