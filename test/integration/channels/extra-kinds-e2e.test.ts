import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Channel, Delivery } from '../../../server/db/models';
import {
  PDF_BYTES,
  PNG_BYTES,
  startFileHost,
  type FileHost,
} from '../../fixtures/peers/attachment-files';
import { startBarkPeer, type BarkPeer } from '../../fixtures/peers/bark-peer';
import { startDiscordPeer, type DiscordPeer } from '../../fixtures/peers/discord-peer';
import { startFeishuPeer, type FeishuPeer } from '../../fixtures/peers/feishu-peer';
import { startGotifyPeer, type GotifyPeer } from '../../fixtures/peers/gotify-peer';
import { startNtfyPeer, type NtfyPeer } from '../../fixtures/peers/ntfy-peer';
import { startSlackPeer, type SlackPeer } from '../../fixtures/peers/slack-peer';
import { startTelegramPeer, type TelegramPeer } from '../../fixtures/peers/telegram-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

/**
 * Feishu, Telegram, ntfy, Gotify, Bark, Slack and Discord through a real Herald: channels made
 * in the console, messages sent through V1 and V2, reaching local peers that check what each
 * platform checks.
 */
describe('extra channel kinds through Herald', () => {
  const FEISHU_SECRET = 'feishu-signing-secret';
  const OPEN_ID = 'ou_7d8a6e6df7621556ce0d21922b676706ccs';
  const DISCORD_USER = '123456789012345678';
  const GOTIFY_TOKEN = 'AbCdEf.gotify-app1';
  const BARK_KEY = 'ynJ5Ft4atkMkWeo2PAvFhF';

  let herald: TestHerald;
  let feishu: FeishuPeer;
  let telegram: TelegramPeer;
  let ntfy: NtfyPeer;
  let gotify: GotifyPeer;
  let bark: BarkPeer;
  let slack: SlackPeer;
  let discord: DiscordPeer;
  let files: FileHost;
  const channels: Record<string, number> = {};
  let configs: Record<string, Record<string, unknown>>;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 3 } } });
    [files, feishu, telegram, ntfy, gotify, bark, slack, discord] = await Promise.all([
      startFileHost(),
      startFeishuPeer({ secret: FEISHU_SECRET }),
      startTelegramPeer(),
      startNtfyPeer({ protectedTopics: { alerts: { tokens: ['tk_herald'] } } }),
      startGotifyPeer({ appToken: GOTIFY_TOKEN }),
      startBarkPeer({ deviceKeys: [BARK_KEY] }),
      startSlackPeer(),
      startDiscordPeer(),
    ]);
    configs = {
      feishu: { webhookUrl: feishu.url, secret: FEISHU_SECRET },
      telegram: { botToken: telegram.token, chatId: '-1001234567890', serverUrl: telegram.url },
      ntfy: { serverUrl: ntfy.url, topic: 'alerts', token: 'tk_herald', priority: 'high' },
      gotify: { serverUrl: gotify.url, appToken: GOTIFY_TOKEN, priority: 7 },
      bark: { serverUrl: bark.url, deviceKey: BARK_KEY, group: 'ops' },
      slack: { webhookUrl: slack.url },
      discord: { webhookUrl: discord.url, username: 'Herald' },
    };
    for (const [type, config] of Object.entries(configs))
      channels[type] = (await herald.createChannel(type, config)).id;
  });

  afterAll(async () => {
    await herald?.close(true);
    await Promise.all(
      [files, feishu, telegram, ntfy, gotify, bark, slack, discord].map((p) => p?.close()),
    );
  });

  const finished = (title: string) =>
    herald.waitFor(async () => {
      const d = await Delivery.findOne({ where: { title } });
      return d && (d.status === 'sent' || d.status === 'failed') ? d : null;
    });

  it('the console masks each kind’s secrets and seals them at rest', async () => {
    const secrets: Record<string, string[]> = {
      feishu: ['webhookUrl', 'secret'],
      telegram: ['botToken'],
      ntfy: ['topic', 'token'],
      gotify: ['appToken'],
      bark: ['deviceKey'],
      slack: ['webhookUrl'],
      discord: ['webhookUrl'],
    };
    for (const [type, fields] of Object.entries(secrets)) {
      const dto = await herald.console.ok('GET', `/channels/${channels[type]}`);
      const stored = JSON.stringify((await Channel.findByPk(channels[type]))?.config);
      for (const field of fields) {
        expect(dto.config[field], `${type}.${field}`).toBe('******');
        expect(stored, `${type}.${field} at rest`).not.toContain(String(configs[type][field]));
      }
    }
  });

  it('V1 delivers Markdown with mentions to every kind in one task', async () => {
    const instances = Object.values(channels).map((channelId) => ({
      channelId,
      contentType: 'markdown' as const,
    }));
    const { token } = await herald.createTask('extra-kinds-v1', instances);
    const res = await herald.sendV1({
      token,
      title: 'Disk alert',
      markdown: '**web-3** at 98%',
      at_userids: [OPEN_ID, DISCORD_USER, 'U024BE7LH'],
      at_all: true,
    });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });

    expect(feishu.received.at(-1)).toMatchObject({
      msgType: 'interactive',
      mentioned: [OPEN_ID, 'all'],
    });
    expect(telegram.received.at(-1)).toMatchObject({
      parseMode: 'HTML',
      visibleText: 'Disk alert\nweb-3 at 98%',
    });
    expect(ntfy.received.at(-1)).toMatchObject({
      title: 'Disk alert',
      message: '**web-3** at 98%',
      markdown: true,
      priority: 4,
    });
    expect(gotify.received.at(-1)).toMatchObject({
      title: 'Disk alert',
      priority: 7,
      extras: { 'client::display': { contentType: 'text/markdown' } },
    });
    expect(bark.received.at(-1)).toMatchObject({
      title: 'Disk alert',
      markdown: '**web-3** at 98%',
      body: 'web-3 at 98%',
    });
    expect(slack.received.at(-1)).toMatchObject({ mentions: ['U024BE7LH', 'channel'] });
    expect(slack.received.at(-1)?.text).toContain('*web-3* at 98%');
    expect(discord.received.at(-1)).toMatchObject({
      username: 'Herald',
      pinged: [DISCORD_USER, 'everyone'],
    });
  });

  it('V2 fills a text template and delivers it to every kind', async () => {
    const instances = Object.values(channels).map((channelId) => ({
      channelId,
      contentType: 'text' as const,
    }));
    const { token } = await herald.createTemplate(
      {
        text: '{{host}} at {{use}} <ok> & *fine*',
        placeholders: [
          { key: 'host', label: 'Host' },
          { key: 'use', label: 'Use' },
        ],
      },
      instances,
    );
    const res = await herald.sendV2({
      token,
      title: 'V2 disk',
      placeholders: { host: 'web-3', use: '98%' },
    });
    expect(res.body).toMatchObject({ code: 200, data: { count: 7 } });
    await herald.waitFor(async () => {
      const rows = await Delivery.findAll({ where: { title: 'V2 disk' } });
      return rows.length === 7 && rows.every((d) => d.status === 'sent');
    });
    const body = 'web-3 at 98% <ok> & *fine*';
    expect(feishu.received.at(-1)?.body).toMatchObject({
      msg_type: 'text',
      content: { text: `V2 disk\n${body}` },
    });
    expect(telegram.received.at(-1)).toMatchObject({
      parseMode: undefined,
      visibleText: `V2 disk\n${body}`,
    });
    expect(ntfy.received.at(-1)).toMatchObject({
      title: 'V2 disk',
      message: body,
      markdown: false,
    });
    expect(gotify.received.at(-1)).toMatchObject({ title: 'V2 disk', message: body });
    expect(bark.received.at(-1)).toMatchObject({ title: 'V2 disk', body });
    expect(slack.received.at(-1)).toMatchObject({
      text: 'V2 disk\nweb-3 at 98% &lt;ok&gt; &amp; *fine*',
      mrkdwn: false,
    });
    expect(discord.received.at(-1)?.content).toBe(
      '**V2 disk**\nweb-3 at 98% \\<ok\\> & \\*fine\\*',
    );
  });

  it('V1 reports a permanent platform refusal at once with the platform’s words', async () => {
    const wrong = await herald.createChannel('telegram', {
      botToken: telegram.token,
      chatId: '-100999',
      serverUrl: telegram.url,
    });
    const { token } = await herald.createTask('telegram-unknown-chat', [
      { channelId: wrong.id, contentType: 'text' },
    ]);
    const res = await herald.sendV1({ token, title: 'unknown chat', text: 'x' });
    expect(res.body.code).toBe(500);
    expect(res.body.msg).toContain('chat not found');
    expect(await finished('unknown chat')).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('V2 retries a Telegram flood wait and a Discord 429 until delivered', async () => {
    const { token } = await herald.createTemplate({ text: 'retry me' }, [
      { channelId: channels.telegram, contentType: 'text' },
      { channelId: channels.discord, contentType: 'text' },
    ]);
    telegram.floodNext(1);
    discord.rateLimitNext(0.2);
    await herald.sendV2({ token, title: 'flood once' });
    await herald.waitFor(async () => {
      const rows = await Delivery.findAll({ where: { title: 'flood once' } });
      return rows.length === 2 && rows.every((d) => d.status === 'sent');
    });
    const rows = await Delivery.findAll({ where: { title: 'flood once' } });
    expect(rows.map((d) => d.attempts)).toEqual([2, 2]);
  });

  it('V1 takes an uploaded image and a file by URL, and every kind gets what it can carry', async () => {
    // The file's server is on loopback, which the outbound-fetch guard refuses unless allowed.
    await herald.console.ok('PUT', '/settings', { allowPrivateAddresses: true });
    const remote = files.attachment({
      id: 'remotePdfAAAAAAAAAAAAAAA',
      filename: 'report.pdf',
      mime: 'application/pdf',
      data: PDF_BYTES,
    });
    const instances = Object.values(channels).map((channelId) => ({
      channelId,
      contentType: 'markdown' as const,
    }));
    const { token } = await herald.createTask('extra-kinds-files', instances);
    const form = new FormData();
    form.append(
      'payload_json',
      JSON.stringify({
        token,
        title: 'Files attached',
        markdown: '**web-3** at 98%',
        attachments: [{ url: remote.url }],
      }),
    );
    form.append('files[]', new Blob([PNG_BYTES]), 'chart.png');
    const res = await fetch(`${herald.url}/api/v1/message/send`, { method: 'POST', body: form });
    expect(((await res.json()) as { code: number }).code).toBe(200);
    const rows = await herald.waitFor(async () => {
      const found = await Delivery.findAll({ where: { title: 'Files attached' } });
      const done = found.filter((d) => d.status === 'sent' || d.status === 'failed');
      return found.length === instances.length && done.length === found.length ? found : null;
    });
    expect(rows.map((d) => [d.channelType, d.status, d.lastError])).toEqual(
      rows.map((d) => [d.channelType, 'sent', null]),
    );

    // Herald keeps its own copies: every platform gets Herald's address, never the sender's.
    const page = await herald.console.ok('GET', '/logs?q=Files%20attached');
    const detail = await herald.console.ok('GET', `/logs/${page.items[0].id}`);
    const [image, pdf] = detail.attachments as Array<{ name: string; type: string; url: string }>;
    expect([image, pdf].map((a) => [a.name, a.type])).toEqual([
      ['chart.png', 'image/png'],
      ['report.pdf', 'application/pdf'],
    ]);
    expect(pdf.url.startsWith(herald.url)).toBe(true);
    const served = await fetch(image.url);
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG_BYTES)).toBe(true);

    // The bytes themselves: Telegram's photo and document, Discord's files.
    const [photo, document] = telegram.uploads.slice(-2);
    expect(photo).toMatchObject({ method: 'sendPhoto', filename: 'chart.png' });
    expect(photo.data.equals(PNG_BYTES)).toBe(true);
    expect(document).toMatchObject({ method: 'sendDocument', filename: 'report.pdf' });
    expect(document.data.equals(PDF_BYTES)).toBe(true);
    const posted = discord.received.at(-1)!;
    expect(posted.files.map((f) => [f.filename, f.contentType])).toEqual([
      ['chart.png', 'image/png'],
      ['report.pdf', 'application/pdf'],
    ]);
    expect(posted.files[1].data.equals(PDF_BYTES)).toBe(true);
    // By URL: ntfy attaches the first file, Bark and Gotify show the image.
    expect(ntfy.received.at(-1)?.attach).toEqual({ url: image.url, name: 'chart.png' });
    expect(ntfy.received.at(-1)?.message).toContain(pdf.url);
    expect(bark.received.at(-1)?.image).toBe(image.url);
    expect(gotify.received.at(-1)?.extras?.['client::notification']).toEqual({
      bigImageUrl: image.url,
    });
    // Links where the platform cannot carry a file.
    for (const text of [slack.received.at(-1)?.text, JSON.stringify(feishu.received.at(-1))]) {
      expect(text).toContain(pdf.url);
      expect(text).not.toContain(remote.url);
    }
  });
});
