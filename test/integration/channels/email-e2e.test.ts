import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Delivery } from '../../../server/db/models';
import { startSmtpSink, type SmtpSink } from '../../fixtures/peers/smtp-sink';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

describe('email through Herald', () => {
  let herald: TestHerald;
  let sink: SmtpSink;
  let channelId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 3 } } });
    sink = await startSmtpSink({ mode: 'starttls' });
    channelId = (await createEmailChannel()).id;
  });
  afterAll(async () => {
    await herald.close(true);
    await sink.close();
  });

  const createEmailChannel = () =>
    herald.createChannel('email', {
      host: sink.host,
      port: sink.port,
      secure: 'starttls',
      username: 'herald',
      password: 'sink-password',
      from: 'herald@example.com',
      fromName: 'Herald 通知',
      allowSelfSigned: true,
    });
  const finished = (title: string) =>
    herald.waitFor(async () => {
      const rows = await Delivery.findAll({ where: { title } });
      return rows.length > 0 && rows.every((d) => d.status === 'sent' || d.status === 'failed')
        ? rows
        : null;
    });
  const mailsTitled = (subject: string) =>
    sink.received.filter((m) => m.parsed.subject === subject);

  it('shows the password masked', async () => {
    const dto = await herald.console.ok('GET', `/channels/${channelId}`);
    expect(dto.config).toMatchObject({ host: sink.host, username: 'herald', password: '******' });
  });

  it('V1 sends one HTML mail to the instance’s addresses, with a plain-text part first', async () => {
    const { token } = await herald.createTask('email-v1', [
      { channelId, contentType: 'html', recipient: 'ops@example.com, oncall@example.org' },
    ]);
    const res = await herald.sendV1({
      token,
      title: '备份报告 Backup report',
      html: '<p>All <b>12</b> jobs done</p>',
    });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    const [mail] = mailsTitled('备份报告 Backup report');
    expect(mail.envelopeTo).toEqual(['ops@example.com', 'oncall@example.org']);
    expect(mail.parsed.from?.value).toEqual([
      { name: 'Herald 通知', address: 'herald@example.com' },
    ]);
    expect(mail.parsed.html).toBe('<p>All <b>12</b> jobs done</p>');
    expect(mail.parsed.text).toContain('All 12 jobs done');
    expect(mail.raw.search(/^Content-Type: text\/plain/im)).toBeLessThan(
      mail.raw.search(/^Content-Type: text\/html/im),
    );
  });

  it('V2 sends one text mail per dynamic recipient', async () => {
    const { token } = await herald.createTemplate(
      { text: '{{host}} is down', placeholders: [{ key: 'host', label: 'Host' }] },
      [{ channelId, contentType: 'text', dynamicRecipients: true }],
    );
    const res = await herald.sendV2({
      token,
      title: 'V2 down',
      placeholders: { host: 'db-1' },
      recipients: ['a@example.com', 'b@example.com'],
    });
    expect(res.body.code).toBe(200);
    const rows = await finished('V2 down');
    expect(rows.map((d) => d.status)).toEqual(['sent', 'sent']);
    const mails = mailsTitled('V2 down');
    expect(mails.map((m) => m.envelopeTo).sort()).toEqual([['a@example.com'], ['b@example.com']]);
    for (const m of mails) {
      expect(m.parsed.text?.trimEnd()).toBe('db-1 is down');
      expect(m.parsed.html).toBe(false);
    }
  });

  it('V2 refuses a recipient that is not an email address', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId, contentType: 'text', dynamicRecipients: true },
    ]);
    const res = await herald.sendV2({ token, title: 'bad address', recipients: ['ops'] });
    expect(res.body.code).toBe(400);
    expect(res.body.msg).toBe('recipients: "ops" is not an email address');
  });

  it('a 451 from the server is retried and a 550 fails at once with the reply', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId, contentType: 'text', recipient: 'ops@example.com' },
    ]);
    sink.failNext(1, 'temp');
    await herald.sendV2({ token, title: 'temp once' });
    const [retried] = await finished('temp once');
    expect(retried).toMatchObject({ status: 'sent', attempts: 2 });

    sink.failNext(1, 'perm');
    await herald.sendV2({ token, title: 'perm once' });
    const [failed] = await finished('perm once');
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed.reply).toContain('550 5.7.1 Message rejected');
  });

  it('a corrected password is used as soon as the channel is saved', async () => {
    // Its own channel: the edits below would otherwise change the one the other tests send through.
    const channelId = (await createEmailChannel()).id;
    await herald.console.ok('PUT', `/channels/${channelId}`, {
      config: {
        host: sink.host,
        port: sink.port,
        secure: 'starttls',
        username: 'herald',
        password: 'wrong',
        from: 'herald@example.com',
        allowSelfSigned: true,
      },
    });
    const { token } = await herald.createTask('email-password', [
      { channelId, contentType: 'text', recipient: 'ops@example.com' },
    ]);
    const bad = await herald.sendV1({ token, title: 'bad password', text: 'x' });
    expect(bad.body.code).toBe(500);
    expect(bad.body.msg).toContain('535');

    await herald.console.ok('PUT', `/channels/${channelId}`, {
      config: {
        host: sink.host,
        port: sink.port,
        secure: 'starttls',
        username: 'herald',
        password: 'sink-password',
        from: 'herald@example.com',
        allowSelfSigned: true,
      },
    });
    const good = await herald.sendV1({ token, title: 'good password', text: 'x' });
    expect(good.body).toMatchObject({ code: 200, data: { status: 'sent' } });
  });
});
