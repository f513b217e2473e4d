import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createBarkAdapter } from '../../../server/channels/bark';
import { createDiscordAdapter } from '../../../server/channels/discord';
import { createEmailAdapter, emailConfigSchema } from '../../../server/channels/email';
import { createGotifyAdapter } from '../../../server/channels/gotify';
import { createNtfyAdapter } from '../../../server/channels/ntfy';
import { createTelegramAdapter } from '../../../server/channels/telegram';
import {
  PDF_BYTES,
  PNG_BYTES,
  startFileHost,
  type FileHost,
} from '../../fixtures/peers/attachment-files';
import { startBarkPeer, type BarkPeer } from '../../fixtures/peers/bark-peer';
import { startDiscordPeer, type DiscordPeer } from '../../fixtures/peers/discord-peer';
import { startGotifyPeer, type GotifyPeer } from '../../fixtures/peers/gotify-peer';
import { startNtfyPeer, type NtfyPeer } from '../../fixtures/peers/ntfy-peer';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import { startSmtpSink, type SmtpSink } from '../../fixtures/peers/smtp-sink';
import { startTelegramPeer, type TelegramPeer } from '../../fixtures/peers/telegram-peer';

/*
 * The channels that carry files themselves (issue 43 §2): email and Telegram and Discord take
 * the bytes, ntfy, Bark and Gotify take Herald's URL and their apps fetch it. One peer of each
 * for the whole file; each test reads the peer's newest delivery.
 */
const GROUP = '-1001234567890';
const BARK_KEY = 'ynJ5Ft4atkMkWeo2PAvFhF';

describe('channels that carry the files of a message', () => {
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let files: FileHost;
  let sink: SmtpSink;
  let telegram: TelegramPeer;
  let discord: DiscordPeer;
  let ntfy: NtfyPeer;
  let bark: BarkPeer;
  let gotify: GotifyPeer;

  beforeAll(async () => {
    [files, sink, telegram, discord, ntfy, bark, gotify] = await Promise.all([
      startFileHost(),
      startSmtpSink({ mode: 'plain' }),
      startTelegramPeer({ now: clock.now }),
      startDiscordPeer({ now: clock.now }),
      startNtfyPeer({ now: clock.now }),
      startBarkPeer({ deviceKeys: [BARK_KEY] }),
      startGotifyPeer(),
    ]);
  });

  afterAll(async () => {
    await Promise.all(
      [files, sink, telegram, discord, ntfy, bark, gotify].map((peer) => peer?.close()),
    );
  });

  const chart = () =>
    files.attachment({
      id: 'img1AAAAAAAAAAAAAAAAAAAA',
      filename: 'chart 图.png',
      mime: 'image/png',
      data: PNG_BYTES,
    });
  const report = () =>
    files.attachment({
      id: 'pdf1AAAAAAAAAAAAAAAAAAAA',
      filename: 'report.pdf',
      mime: 'application/pdf',
      data: PDF_BYTES,
    });
  const last = <T>(list: readonly T[]): T => list[list.length - 1];

  describe('email', () => {
    const adapter = createEmailAdapter();
    const config = () =>
      emailConfigSchema.parse({
        host: sink.host,
        port: sink.port,
        secure: 'none',
        username: 'herald',
        password: 'sink-password',
        from: 'herald@example.com',
      });

    it('send() shows an HTML mail’s image inline by cid and attaches the other file', async () => {
      await adapter.send(
        config(),
        outboundMessage({
          contentType: 'html',
          content: '<p>Nightly <b>report</b></p>',
          recipient: 'ops@example.com',
          attachments: [chart(), report()],
        }),
        services,
      );
      const { parsed, raw } = last(sink.received);
      expect(raw).toMatch(/^Content-Type: multipart\/related/m);
      const image = parsed.attachments.find((a) => a.contentType === 'image/png')!;
      const pdf = parsed.attachments.find((a) => a.contentType === 'application/pdf')!;
      expect(image.filename).toBe('chart 图.png');
      expect(image.content.equals(PNG_BYTES)).toBe(true);
      expect(image.contentDisposition).toBe('inline');
      expect(image.cid).toBeTruthy();
      // The HTML body points at the image part by its Content-ID: mailparser resolves that
      // reference to the part's bytes, which it can only do when the two match.
      expect(image.related).toBe(true);
      expect(parsed.html).toContain(`src="data:image/png;base64,${PNG_BYTES.toString('base64')}"`);
      expect(parsed.html).toContain('Nightly <b>report</b>');
      expect(pdf.filename).toBe('report.pdf');
      expect(pdf.content.equals(PDF_BYTES)).toBe(true);
      expect(pdf.contentDisposition).toBe('attachment');
      expect(parsed.text).toContain('Nightly');
    });

    it('send() attaches every file of a text mail, images too, and keeps the text as written', async () => {
      await adapter.send(
        config(),
        outboundMessage({ recipient: 'ops@example.com', attachments: [chart(), report()] }),
        services,
      );
      const { parsed } = last(sink.received);
      expect(parsed.html).toBe(false);
      expect(parsed.text?.trim()).toBe('web-3 at 98%');
      expect(parsed.attachments.map((a) => [a.filename, a.contentDisposition])).toEqual([
        ['chart 图.png', 'attachment'],
        ['report.pdf', 'attachment'],
      ]);
    });
  });

  describe('Telegram', () => {
    const adapter = createTelegramAdapter();
    const config = () =>
      adapter.configSchema.parse({
        botToken: telegram.token,
        chatId: GROUP,
        serverUrl: telegram.url,
      });

    it('send() uploads an image with sendPhoto carrying the text as caption, then a file with sendDocument', async () => {
      const before = telegram.received.length;
      const receipt = await adapter.send(
        config(),
        outboundMessage({
          contentType: 'markdown',
          content: '**web-3** at 98%',
          attachments: [chart(), report()],
        }),
        services,
      );
      // The text fits a caption: no separate text message.
      expect(telegram.received).toHaveLength(before);
      const [photo, document] = telegram.uploads.slice(-2);
      expect(photo).toMatchObject({
        method: 'sendPhoto',
        chatId: GROUP,
        filename: 'chart 图.png',
        contentType: 'image/png',
        parseMode: 'HTML',
        visibleCaption: 'Disk alert\nweb-3 at 98%',
      });
      expect(photo.data.equals(PNG_BYTES)).toBe(true);
      expect(document).toMatchObject({
        method: 'sendDocument',
        filename: 'report.pdf',
        contentType: 'application/pdf',
        caption: undefined,
      });
      expect(document.data.equals(PDF_BYTES)).toBe(true);
      expect(receipt.reply).toBe(`message_id ${photo.messageId}, ${document.messageId}`);
    });

    it('send() sends a GIF as a document and links a file over the 50 MB upload limit', async () => {
      const gif = files.attachment({
        id: 'gif1AAAAAAAAAAAAAAAAAAAA',
        filename: 'spinner.gif',
        mime: 'image/gif',
        data: Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'),
      });
      const huge = { ...report(), filename: 'dump.bin', size: 60 * 1024 * 1024 };
      await adapter.send(config(), outboundMessage({ attachments: [gif, huge] }), services);
      expect(last(telegram.uploads)).toMatchObject({
        method: 'sendDocument',
        filename: 'spinner.gif',
        visibleCaption: `Disk alert\nweb-3 at 98%\n\ndump.bin (60 MB): ${huge.url}`,
      });
    });

    it('send() sends text over the 1024-character caption limit as its own message first', async () => {
      const long = 'x'.repeat(1500);
      const uploads = telegram.uploads.length;
      await adapter.send(
        config(),
        outboundMessage({ content: long, attachments: [report()] }),
        services,
      );
      expect(last(telegram.received).visibleText).toBe(`Disk alert\n${long}`);
      expect(telegram.uploads).toHaveLength(uploads + 1);
      expect(last(telegram.uploads)).toMatchObject({ method: 'sendDocument', caption: undefined });
    });
  });

  describe('Discord', () => {
    const adapter = createDiscordAdapter();

    it('send() uploads the first ten files and links the rest, and any too large for a request', async () => {
      const many = Array.from({ length: 11 }, (_, i) =>
        files.attachment({
          id: `many${String(i).padStart(20, '0')}`,
          filename: `part-${i}.pdf`,
          mime: 'application/pdf',
          data: PDF_BYTES,
        }),
      );
      // Its size says more than one request may carry; the bytes are never read.
      const huge = { ...report(), filename: 'huge.pdf', size: 30 * 1024 * 1024 };
      await adapter.send(
        adapter.configSchema.parse({ webhookUrl: discord.url }),
        outboundMessage({ attachments: [huge, ...many] }),
        services,
      );
      const got = last(discord.received);
      expect(got.files.map((f) => f.filename)).toEqual(many.slice(0, 10).map((a) => a.filename));
      expect(got.content).toBe(
        `**Disk alert**\nweb-3 at 98%\nhuge.pdf (30 MB): <${huge.url}>\n` +
          `part-10.pdf (${PDF_BYTES.length} B): <${many[10].url}>`,
      );
    });

    it('send() posts the files as files[n] parts beside payload_json', async () => {
      const receipt = await adapter.send(
        adapter.configSchema.parse({ webhookUrl: discord.url }),
        outboundMessage({ attachments: [chart(), report()] }),
        services,
      );
      const got = last(discord.received);
      expect(receipt.reply).toMatch(/^message \d+$/);
      expect(got.content).toBe('**Disk alert**\nweb-3 at 98%');
      expect(got.files.map((f) => [f.field, f.filename, f.contentType])).toEqual([
        ['files[0]', 'chart 图.png', 'image/png'],
        ['files[1]', 'report.pdf', 'application/pdf'],
      ]);
      expect(got.files[0].data.equals(PNG_BYTES)).toBe(true);
      expect(got.files[1].data.equals(PDF_BYTES)).toBe(true);
    });

    it('send() posts JSON, as before, when the message has no files', async () => {
      await adapter.send(
        adapter.configSchema.parse({ webhookUrl: discord.url }),
        outboundMessage(),
        services,
      );
      expect(last(discord.received).files).toEqual([]);
      expect(last(discord.received).body.attachments).toBeUndefined();
    });
  });

  describe('ntfy', () => {
    const adapter = createNtfyAdapter();

    it('send() attaches the first file by its URL and links the others in the message', async () => {
      const image = chart();
      const pdf = report();
      await adapter.send(
        adapter.configSchema.parse({ serverUrl: ntfy.url, topic: 'alerts' }),
        outboundMessage({ attachments: [image, pdf] }),
        services,
      );
      const got = last(ntfy.received);
      expect(got.attach).toEqual({ url: image.url, name: 'chart 图.png' });
      expect(got.message).toBe(`web-3 at 98%\n\nreport.pdf (${PDF_BYTES.length} B): ${pdf.url}`);
      // What ntfy's apps do with the attachment: fetch it from Herald.
      const fetched = await files.fetch(got.attach!.url);
      expect(fetched.data.equals(PNG_BYTES)).toBe(true);
    });
  });

  describe('Bark', () => {
    const adapter = createBarkAdapter();

    it('send() gives the first image as `image` and links the other files', async () => {
      const image = chart();
      const pdf = report();
      await adapter.send(
        adapter.configSchema.parse({ serverUrl: bark.url, deviceKey: BARK_KEY }),
        outboundMessage({ contentType: 'markdown', content: '**98%**', attachments: [pdf, image] }),
        services,
      );
      const got = last(bark.received);
      expect(got.image).toBe(image.url);
      expect(got.markdown).toBe(`**98%**\n\n[report.pdf](${pdf.url}) (${PDF_BYTES.length} B)`);
      expect((await files.fetch(got.image!)).type).toBe('image/png');
    });
  });

  describe('Gotify', () => {
    const adapter = createGotifyAdapter();

    it('send() makes the first image the big picture and shows it as a Markdown image', async () => {
      const image = chart();
      const pdf = report();
      await adapter.send(
        adapter.configSchema.parse({ serverUrl: gotify.url, appToken: 'AbCdEf.gotify-app1' }),
        outboundMessage({
          contentType: 'markdown',
          content: 'disk',
          url: 'https://x.example/1',
          attachments: [image, pdf],
        }),
        services,
      );
      const got = last(gotify.received);
      expect(got.extras?.['client::notification']).toEqual({
        click: { url: 'https://x.example/1' },
        bigImageUrl: image.url,
      });
      expect(got.message).toBe(
        `disk\n\n![chart 图.png](${image.url})\n\n[report.pdf](${pdf.url}) (${PDF_BYTES.length} B)`,
      );
      expect((await files.fetch(image.url)).data.equals(PNG_BYTES)).toBe(true);
    });

    it('send() lists the files as plain links in a text message', async () => {
      const image = chart();
      await adapter.send(
        adapter.configSchema.parse({ serverUrl: gotify.url, appToken: 'AbCdEf.gotify-app1' }),
        outboundMessage({ attachments: [image] }),
        services,
      );
      const got = last(gotify.received);
      expect(got.message).toBe(
        `web-3 at 98%\n\nchart 图.png (${PNG_BYTES.length} B): ${image.url}`,
      );
      expect(got.extras?.['client::notification']).toEqual({ bigImageUrl: image.url });
    });
  });
});
