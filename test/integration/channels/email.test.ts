import net from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { DeliveryError } from '../../../server/channels/delivery-error';
import {
  createEmailAdapter,
  emailConfigSchema,
  type EmailConfig,
} from '../../../server/channels/email';
import { adapterRuntime, outboundMessage } from '../../fixtures/peers/outbound-message';
import { startSmtpSink, type SmtpSink, type SmtpSinkOptions } from '../../fixtures/peers/smtp-sink';

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(DeliveryError);
    return err as DeliveryError;
  }
  throw new Error('expected the send to fail');
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const LONG_SUBJECT =
  '磁盘告警：web-3 的 /var 分区已使用 98%，请尽快清理日志文件并检查备份任务是否仍在运行';

describe('email adapter against a real SMTP server', () => {
  const services = adapterRuntime();
  let sink: SmtpSink;

  afterEach(async () => {
    await sink?.close();
  });

  async function setUp(options: SmtpSinkOptions, overrides: Partial<EmailConfig> = {}) {
    sink = await startSmtpSink(options);
    const config = emailConfigSchema.parse({
      host: sink.host,
      port: sink.port,
      secure: options.mode === 'plain' ? 'none' : options.mode,
      username: 'herald',
      password: 'sink-password',
      from: 'herald@example.com',
      fromName: 'Herald 通知',
      allowSelfSigned: true,
      ...overrides,
    });
    return { adapter: createEmailAdapter(), config };
  }

  it('send() delivers a UTF-8 text mail over STARTTLS with AUTH to several recipients', async () => {
    const { adapter, config } = await setUp({ mode: 'starttls' });
    const receipt = await adapter.send(
      config,
      outboundMessage({
        title: LONG_SUBJECT,
        content: 'web-3 的磁盘快满了 ✅',
        recipient: 'ops@example.com, oncall@example.org',
      }),
      services,
    );
    expect(receipt.reply).toMatch(/^250 /);

    const [mail] = sink.received;
    expect(mail.secure).toBe(true);
    expect(mail.user).toBe('herald');
    expect(mail.envelopeFrom).toBe('herald@example.com');
    expect(mail.envelopeTo).toEqual(['ops@example.com', 'oncall@example.org']);
    expect(mail.parsed.subject).toBe(LONG_SUBJECT);
    expect(mail.parsed.from?.value).toEqual([
      { name: 'Herald 通知', address: 'herald@example.com' },
    ]);
    expect(mail.parsed.text).toBe('web-3 的磁盘快满了 ✅');
    expect(mail.parsed.html).toBe(false);
    expect(mail.raw).toMatch(/^Content-Type: text\/plain; charset=utf-8/im);
    expect(mail.raw).toMatch(/^MIME-Version: 1\.0/m);
    expect(mail.raw).toMatch(/^Message-ID: </m);
    expect(mail.raw).toMatch(/^Date: /m);
    // RFC 2047: the non-ASCII subject travels as encoded-words on lines of at most 78 characters.
    const header = /^Subject: [\s\S]*?\r\n(?=\S)/m.exec(mail.raw)?.[0] ?? '';
    expect(header).toContain('=?UTF-8?');
    for (const line of header.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
  });

  it('send() delivers HTML as multipart/alternative, plain text first, over implicit TLS', async () => {
    const { adapter, config } = await setUp({ mode: 'tls' });
    await adapter.send(
      config,
      outboundMessage({
        contentType: 'html',
        title: 'Backup report',
        content: '<h2>Backup</h2><p>All <b>12</b> jobs done — 完成</p>',
        recipient: 'ops@example.com',
      }),
      services,
    );
    const [mail] = sink.received;
    expect(mail.secure).toBe(true);
    expect(mail.raw).toMatch(/^Content-Type: multipart\/alternative;/m);
    const plainAt = mail.raw.search(/^Content-Type: text\/plain; charset=utf-8/im);
    const htmlAt = mail.raw.search(/^Content-Type: text\/html; charset=utf-8/im);
    expect(plainAt).toBeGreaterThan(0);
    expect(htmlAt).toBeGreaterThan(plainAt);
    expect(mail.parsed.html).toBe('<h2>Backup</h2><p>All <b>12</b> jobs done — 完成</p>');
    expect(mail.parsed.text).toContain('All 12 jobs done — 完成');
    expect(mail.parsed.headers.get('auto-submitted')).toBe('auto-generated');
  });

  it('send() delivers over a plain connection without AUTH when no username is set', async () => {
    const { adapter, config } = await setUp({ mode: 'plain', users: {} }, { username: '' });
    await adapter.send(config, outboundMessage({ recipient: 'ops@example.com' }), services);
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0].secure).toBe(false);
    expect(sink.auths).toEqual([]);
  });

  it('send() authenticates with AUTH PLAIN over a plain connection when a username is set', async () => {
    const { adapter, config } = await setUp({ mode: 'plain' });
    await adapter.send(config, outboundMessage({ recipient: 'ops@example.com' }), services);
    expect(sink.auths).toEqual([{ method: 'PLAIN', username: 'herald', ok: true }]);
  });

  it('send() authenticates with AUTH LOGIN when the server offers only that', async () => {
    const { adapter, config } = await setUp({ mode: 'tls', authMethods: ['LOGIN'] });
    await adapter.send(config, outboundMessage({ recipient: 'ops@example.com' }), services);
    expect(sink.auths).toEqual([{ method: 'LOGIN', username: 'herald', ok: true }]);
    expect(sink.received[0].user).toBe('herald');
  });

  it('send() fails permanently with the 535 reply when the password is wrong', async () => {
    const { adapter, config } = await setUp({ mode: 'starttls' }, { password: 'wrong' });
    const err = await failure(
      adapter.send(config, outboundMessage({ recipient: 'ops@example.com' }), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('535');
    expect(err.reply).toContain('Username and Password not accepted');
    expect(sink.received).toHaveLength(0);
  });

  it('send() picks up a corrected password on the same channel', async () => {
    const { adapter, config } = await setUp({ mode: 'starttls' });
    const message = outboundMessage({ recipient: 'ops@example.com', channelId: 7 });
    await failure(adapter.send({ ...config, password: 'wrong' }, message, services));
    await adapter.send(config, message, services);
    expect(sink.received).toHaveLength(1);
  });

  it('send() refuses a self-signed certificate permanently unless allowSelfSigned is set', async () => {
    const { adapter, config } = await setUp({ mode: 'tls' }, { allowSelfSigned: false });
    const err = await failure(
      adapter.send(config, outboundMessage({ recipient: 'ops@example.com' }), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('allowSelfSigned');
    expect(sink.received).toHaveLength(0);
  });

  it('send() refuses the STARTTLS upgrade to a self-signed certificate too', async () => {
    const { adapter, config } = await setUp({ mode: 'starttls' }, { allowSelfSigned: false });
    const err = await failure(
      adapter.send(config, outboundMessage({ recipient: 'ops@example.com' }), services),
    );
    expect(err.retryable).toBe(false);
    expect(sink.auths).toEqual([]);
  });

  it('send() fails permanently when starttls is required but the server does not offer it', async () => {
    const { adapter, config } = await setUp({ mode: 'plain' }, { secure: 'starttls' });
    const err = await failure(
      adapter.send(config, outboundMessage({ recipient: 'ops@example.com' }), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('does not offer STARTTLS');
    expect(sink.auths).toEqual([]);
  });

  it('send() fails permanently when implicit TLS is configured for a plain port', async () => {
    const { adapter, config } = await setUp({ mode: 'plain' }, { secure: 'tls' });
    const err = await failure(
      adapter.send(config, outboundMessage({ recipient: 'ops@example.com' }), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('starttls');
  });

  it('send() fails transiently on a 4xx reply and permanently on a 5xx reply', async () => {
    const { adapter, config } = await setUp({ mode: 'starttls' });
    sink.failNext(1, 'temp');
    sink.failNext(1, 'perm');
    const message = outboundMessage({ recipient: 'ops@example.com' });
    const temp = await failure(adapter.send(config, message, services));
    expect(temp.retryable).toBe(true);
    expect(temp.reply).toContain('451');
    const perm = await failure(adapter.send(config, message, services));
    expect(perm.retryable).toBe(false);
    expect(perm.reply).toContain('550');
    await adapter.send(config, message, services);
    expect(sink.received).toHaveLength(1);
  });

  it('send() succeeds and names refused recipients when only some are refused', async () => {
    const { adapter, config } = await setUp({
      mode: 'starttls',
      rejectRecipients: ['gone@example.com'],
    });
    const receipt = await adapter.send(
      config,
      outboundMessage({ recipient: 'ops@example.com,gone@example.com' }),
      services,
    );
    expect(receipt.reply).toContain('refused recipients: gone@example.com');
    expect(sink.received[0].envelopeTo).toEqual(['ops@example.com']);

    const err = await failure(
      adapter.send(config, outboundMessage({ recipient: 'gone@example.com' }), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('550');
  });

  it('send() fails transiently when nothing listens on the port', async () => {
    const { adapter, config } = await setUp({ mode: 'plain' });
    const err = await failure(
      adapter.send(
        { ...config, port: await closedPort() },
        outboundMessage({ recipient: 'ops@example.com' }),
        services,
      ),
    );
    expect(err.retryable).toBe(true);
  });

  it('send() refuses a malformed recipient permanently without connecting', async () => {
    const { adapter, config } = await setUp({ mode: 'plain' });
    const err = await failure(
      adapter.send(config, outboundMessage({ recipient: 'ops@example.com, nobody' }), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('"nobody" is not an email address');
    expect(sink.auths).toEqual([]);
  });
});
