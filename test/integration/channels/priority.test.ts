import { afterEach, describe, expect, it } from 'vitest';

import { createBarkAdapter } from '../../../server/channels/bark';
import { createDiscordAdapter } from '../../../server/channels/discord';
import { createEmailAdapter, emailConfigSchema } from '../../../server/channels/email';
import { createGotifyAdapter } from '../../../server/channels/gotify';
import { createNtfyAdapter } from '../../../server/channels/ntfy';
import { createSlackAdapter } from '../../../server/channels/slack';
import { createTelegramAdapter } from '../../../server/channels/telegram';
import { createWebhookAdapter } from '../../../server/channels/webhook';
import { startBarkPeer } from '../../fixtures/peers/bark-peer';
import { startDiscordPeer } from '../../fixtures/peers/discord-peer';
import { startGotifyPeer } from '../../fixtures/peers/gotify-peer';
import { startNtfyPeer } from '../../fixtures/peers/ntfy-peer';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import { startSlackPeer } from '../../fixtures/peers/slack-peer';
import { startSmtpSink } from '../../fixtures/peers/smtp-sink';
import { startTelegramPeer } from '../../fixtures/peers/telegram-peer';
import { startHttpPeer } from '../../helpers/recording-peer';

/**
 * Each channel's priority mapping as the platform receives it: local peers that parse and
 * check what the real API does, and a real SMTP server read back with mailparser.
 */
const clock = manualClock();
const services = adapterRuntime(clock);
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function track<T extends { close(): Promise<void> }>(peer: T): T {
  closers.push(() => peer.close());
  return peer;
}

describe('priority over the wire', () => {
  it('ntfy receives the priority as is, and the instance’s default for none', async () => {
    const peer = track(await startNtfyPeer({ now: clock.now }));
    const adapter = createNtfyAdapter();
    const config = adapter.configSchema.parse({
      serverUrl: peer.url,
      topic: 'alerts',
      priority: 2,
    });
    await adapter.send(config, outboundMessage({ priority: 5 }), services);
    await adapter.send(config, outboundMessage(), services);
    expect(peer.received.map((m) => m.priority)).toEqual([5, 2]);
  });

  it('Gotify receives 1, 3, 5, 8, 10, and the instance’s priority for none', async () => {
    const peer = track(await startGotifyPeer({ appToken: 'AbCdEf.gotify-app1' }));
    const adapter = createGotifyAdapter();
    const config = adapter.configSchema.parse({
      serverUrl: peer.url,
      appToken: 'AbCdEf.gotify-app1',
      priority: 4,
    });
    for (const priority of [1, 2, 3, 4, 5] as const)
      await adapter.send(config, outboundMessage({ priority }), services);
    await adapter.send(config, outboundMessage(), services);
    expect(peer.received.map((m) => m.priority)).toEqual([1, 3, 5, 8, 10, 4]);
  });

  it('Bark receives the interruption level, and no level for none on a bare instance', async () => {
    const key = 'ynJ5Ft4atkMkWeo2PAvFhF';
    const peer = track(await startBarkPeer({ deviceKeys: [key] }));
    const adapter = createBarkAdapter();
    const config = adapter.configSchema.parse({ serverUrl: peer.url, deviceKey: key });
    for (const priority of [1, 3, 4, 5] as const)
      await adapter.send(config, outboundMessage({ priority }), services);
    await adapter.send(config, outboundMessage(), services);
    expect(peer.received.map((m) => m.level)).toEqual([
      'passive',
      'active',
      'timeSensitive',
      'critical',
      undefined,
    ]);
  });

  it('Telegram delivers silently at 1–2 and with sound at 5 even on a silent instance', async () => {
    const peer = track(await startTelegramPeer({ now: clock.now }));
    const adapter = createTelegramAdapter();
    const config = (disableNotification: boolean) =>
      adapter.configSchema.parse({
        botToken: peer.token,
        chatId: '-1001234567890',
        serverUrl: peer.url,
        disableNotification,
      });
    await adapter.send(config(false), outboundMessage({ priority: 1 }), services);
    await adapter.send(config(false), outboundMessage(), services);
    await adapter.send(config(true), outboundMessage({ priority: 5 }), services);
    await adapter.send(config(true), outboundMessage(), services);
    expect(peer.received.map((m) => m.silent)).toEqual([true, false, false, true]);
  });

  it('Discord pings @here at 5 only on an instance that allows it', async () => {
    const peer = track(await startDiscordPeer({ now: clock.now }));
    const adapter = createDiscordAdapter();
    const allowed = adapter.configSchema.parse({ webhookUrl: peer.url, mentionAtUrgent: true });
    const plain = adapter.configSchema.parse({ webhookUrl: peer.url });
    await adapter.send(allowed, outboundMessage({ priority: 5 }), services);
    await adapter.send(allowed, outboundMessage({ priority: 4 }), services);
    await adapter.send(plain, outboundMessage({ priority: 5, content: '@here look' }), services);
    expect(peer.received.map((m) => m.pinged)).toEqual([['everyone'], [], []]);
    expect(peer.received[0].content.startsWith('@here\n')).toBe(true);
  });

  it('Slack notifies <!here> at 5 only on an instance that allows it', async () => {
    const peer = track(await startSlackPeer({ now: clock.now }));
    const adapter = createSlackAdapter();
    const allowed = adapter.configSchema.parse({ webhookUrl: peer.url, mentionAtUrgent: true });
    const plain = adapter.configSchema.parse({ webhookUrl: peer.url });
    await adapter.send(allowed, outboundMessage({ priority: 5 }), services);
    clock.advance(2_000);
    await adapter.send(allowed, outboundMessage(), services);
    clock.advance(2_000);
    await adapter.send(plain, outboundMessage({ priority: 5 }), services);
    expect(peer.received.map((m) => m.mentions)).toEqual([['here'], [], []]);
  });

  it('email carries X-Priority and Importance at 1–2 and 4–5, and none for 3 or none', async () => {
    const sink = track(await startSmtpSink({ mode: 'plain', users: {} }));
    const adapter = createEmailAdapter();
    const config = emailConfigSchema.parse({
      host: sink.host,
      port: sink.port,
      secure: 'none',
      from: 'herald@example.com',
    });
    for (const priority of [5, 1, 3, null] as const)
      await adapter.send(
        config,
        outboundMessage({ priority, recipient: 'ops@example.com' }),
        services,
      );
    // mailparser folds the three headers into one `priority`; the raw lines are what clients read.
    const header = (raw: string, name: string) =>
      new RegExp(`^${name}: (.*)$`, 'im').exec(raw.split(/\r?\n\r?\n/)[0])?.[1];
    const seen = sink.received.map((m) => ({
      parsed: m.parsed.headers.get('priority'),
      xPriority: header(m.raw, 'X-Priority'),
      importance: header(m.raw, 'Importance'),
      msMail: header(m.raw, 'X-MSMail-Priority'),
    }));
    const none = {
      parsed: undefined,
      xPriority: undefined,
      importance: undefined,
      msMail: undefined,
    };
    expect(seen).toEqual([
      { parsed: 'high', xPriority: '1 (Highest)', importance: 'High', msMail: 'High' },
      { parsed: 'low', xPriority: '5 (Lowest)', importance: 'Low', msMail: 'Low' },
      none,
      none,
    ]);
  });

  it('the custom webhook’s default body gains priority and repeats only when a send has them', async () => {
    const receiver = track(await startHttpPeer());
    const adapter = createWebhookAdapter();
    const config = adapter.configSchema.parse({ url: receiver.url });
    await adapter.send(config, outboundMessage({ priority: 4, repeats: 2 }), services);
    await adapter.send(config, outboundMessage(), services);
    const custom = adapter.configSchema.parse({
      url: `${receiver.url}?p={{priority}}`,
      body: '{"level":{{priority}},"dupes":{{repeats}},"t":"{{title}}"}',
    });
    await adapter.send(custom, outboundMessage({ priority: 5, repeats: 7 }), services);
    await adapter.send(custom, outboundMessage(), services);
    const base = { title: 'Disk alert', content: 'web-3 at 98%', url: '', format: 'text' };
    expect(receiver.received.map((r) => r.json)).toEqual([
      { ...base, priority: 4, repeats: 2 },
      base,
      { level: 5, dupes: 7, t: 'Disk alert' },
      { level: null, dupes: 0, t: 'Disk alert' },
    ]);
    expect(receiver.received[2].url).toMatch(/\?p=5$/);
    expect(receiver.received[3].url).toMatch(/\?p=$/);
  });
});
