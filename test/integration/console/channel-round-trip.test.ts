import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CHANNEL_TYPES, type Channel, type ChannelType } from '../../../contract';
import { CHANNEL_SAMPLES } from '../../fixtures/channel-samples';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read as loose JSON */

/**
 * Every channel kind through the console API and back, on a real Herald: what a client reads
 * it can save again untouched, and nothing changes (no secret lost, no field moved); a field
 * the kind does not have is refused by name, however the channel is saved.
 */
describe('every channel kind round-trips through the console API', () => {
  let herald: TestHerald;
  let kinds: ChannelType[];

  beforeAll(async () => {
    herald = await startTestHerald();
    kinds = await herald.console.ok('GET', '/channel-types');
  });
  afterAll(() => herald.close(true));

  /** The config the dispatcher sends with: decrypted and parsed. */
  const runtimeConfig = async (id: number) =>
    (await herald.server.ctx.channels.loadRuntime(id))?.config;

  it.each(CHANNEL_TYPES)(
    'PUT of the channel %s as GET answered it changes nothing',
    async (type) => {
      const created: Channel = await herald.console.ok('POST', '/channels', {
        name: `round trip ${type}`,
        description: 'as sent',
        type,
        config: CHANNEL_SAMPLES[type],
      });
      const read: Channel = await herald.console.ok('GET', `/channels/${created.id}`);
      expect(read).toEqual(created);
      const stored = await runtimeConfig(created.id);

      const { name, description, config } = read;
      const saved: Channel = await herald.console.ok('PUT', `/channels/${created.id}`, {
        name,
        description,
        type,
        config,
      });
      expect({ ...saved, updatedAt: read.updatedAt }).toEqual(read);
      expect(await runtimeConfig(created.id)).toEqual(stored);

      // The same edit without `type`, as clients sent it before config was typed.
      await herald.console.ok('PUT', `/channels/${created.id}`, { config });
      expect(await runtimeConfig(created.id)).toEqual(stored);
      expect((await herald.console.ok('GET', `/channels/${created.id}`)).config).toEqual(config);

      // Every field the kind declares is in the answer, and nothing else.
      const fields = kinds.find((k) => k.type === type)!.fields.map((f) => f.key);
      expect(Object.keys(config).every((key) => fields.includes(key))).toBe(true);
      for (const key of Object.keys(CHANNEL_SAMPLES[type])) expect(config).toHaveProperty(key);
    },
  );

  it.each(CHANNEL_TYPES)(
    'a config field the %s kind does not have is a 400 naming it, on create and on edit',
    async (type) => {
      const config = { ...CHANNEL_SAMPLES[type], colour: 'teal' };
      const refused = 'config: Unrecognized key: "colour"';
      const create = await herald.console.post('/channels', { name: `x ${type}`, type, config });
      expect([create.status, create.body.msg]).toEqual([400, refused]);

      const channel = await herald.createChannel(type, CHANNEL_SAMPLES[type]);
      const typed = await herald.console.put(`/channels/${channel.id}`, {
        type,
        config: { ...channel.config, colour: 'teal' },
      });
      expect([typed.status, typed.body.msg]).toEqual([400, refused]);
      // Without `type` the contract cannot know the kind; the server checks against the stored one.
      const untyped = await herald.console.put(`/channels/${channel.id}`, {
        config: { ...channel.config, colour: 'teal' },
      });
      expect([untyped.status, untyped.body.msg]).toEqual([400, refused]);
    },
  );

  it('a bad value is refused naming the field, in the contract and in the server alike', async () => {
    const bad = { ...CHANNEL_SAMPLES.email, port: 'smtp' };
    const create = await herald.console.post('/channels', {
      name: 'bad',
      type: 'email',
      config: bad,
    });
    expect(create.status).toBe(400);
    expect(create.body.msg).toMatch(/^config: port: /);
    const channel = await herald.createChannel('email', CHANNEL_SAMPLES.email);
    for (const body of [{ type: 'email', config: bad }, { config: bad }]) {
      const res = await herald.console.put(`/channels/${channel.id}`, body);
      expect([res.status, res.body.msg]).toEqual([400, create.body.msg]);
    }
  });

  it('an edit that leaves a secret out or masked keeps it, and "" clears it', async () => {
    const channel = await herald.createChannel('email', CHANNEL_SAMPLES.email);
    const { password: _masked, ...withoutPassword } = channel.config;
    await herald.console.ok('PUT', `/channels/${channel.id}`, {
      type: 'email',
      config: withoutPassword,
    });
    expect((await runtimeConfig(channel.id)) as any).toMatchObject({ password: 'app-password' });
    const cleared = await herald.console.ok('PUT', `/channels/${channel.id}`, {
      type: 'email',
      config: { ...channel.config, password: '' },
    });
    expect(cleared.config.password).toBe('');
    expect((await runtimeConfig(channel.id)) as any).toMatchObject({ password: '' });
  });

  it('an edit naming another kind than the channel’s is refused', async () => {
    const channel = await herald.createChannel('hosted', {});
    const res = await herald.console.put(`/channels/${channel.id}`, { type: 'webhook' });
    expect([res.status, res.body.msg]).toEqual([
      400,
      "type: a channel's type cannot change; create a new channel instead",
    ]);
  });
});
