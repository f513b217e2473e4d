import { describe, expect, it } from 'vitest';

import {
  buildEmail,
  classifySmtpError,
  createEmailAdapter,
  emailConfigSchema,
  parseEmailRecipients,
  smtpTransportOptions,
  validateEmailRecipients,
  type EmailConfig,
} from '../../../../server/channels/email';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';

const config: EmailConfig = emailConfigSchema.parse({
  host: 'smtp.example.com',
  port: 465,
  secure: 'tls',
  username: 'ops@example.com',
  password: 'app-password',
  from: 'ops@example.com',
  fromName: 'Herald 通知',
});

describe('validateEmailRecipients', () => {
  it('validateEmailRecipients() accepts one or several comma-separated addresses', () => {
    expect(validateEmailRecipients('ops@example.com')).toBeNull();
    expect(validateEmailRecipients(' a@example.com, b@mail.example.org ;c@x.io')).toBeNull();
    expect(parseEmailRecipients(' a@example.com, b@mail.example.org ;c@x.io,')).toEqual([
      'a@example.com',
      'b@mail.example.org',
      'c@x.io',
    ]);
  });

  it('validateEmailRecipients() names the first address that is not one', () => {
    expect(validateEmailRecipients('')).toBe('no email address given');
    expect(validateEmailRecipients('a@example.com, bob')).toBe('"bob" is not an email address');
    expect(validateEmailRecipients('a b@example.com')).toBe(
      '"a b@example.com" is not an email address',
    );
    expect(validateEmailRecipients('a@localhost')).toBe('"a@localhost" is not an email address');
    expect(validateEmailRecipients(Array(51).fill('a@example.com').join(','))).toMatch(/too many/);
  });
});

describe('buildEmail', () => {
  it('buildEmail() sends text instances as plain text with the title as subject', () => {
    const mail = buildEmail(config, outboundMessage({ title: '磁盘告警' }), ['a@example.com']);
    expect(mail).toMatchObject({
      from: { name: 'Herald 通知', address: 'ops@example.com' },
      to: ['a@example.com'],
      subject: '磁盘告警',
      text: 'web-3 at 98%',
    });
    expect(mail.html).toBeUndefined();
  });

  it('buildEmail() adds a plain-text rendering of HTML bodies', () => {
    const mail = buildEmail(
      { ...config, fromName: '' },
      outboundMessage({
        contentType: 'html',
        content: '<h1>Disk</h1><p>web-3 at <b>98%</b> <a href="https://x.io/d">details</a></p>',
      }),
      ['a@example.com'],
    );
    expect(mail.from).toBe('ops@example.com');
    expect(mail.html).toContain('<h1>Disk</h1>');
    expect(mail.text).toContain('DISK');
    expect(mail.text).toContain('web-3 at 98% details [https://x.io/d]');
  });
});

describe('smtpTransportOptions', () => {
  it('smtpTransportOptions() maps tls, starttls and none to nodemailer settings', () => {
    expect(smtpTransportOptions(config)).toMatchObject({
      secure: true,
      requireTLS: false,
      ignoreTLS: false,
      auth: { user: 'ops@example.com', pass: 'app-password' },
      tls: { rejectUnauthorized: true, servername: 'smtp.example.com' },
    });
    expect(smtpTransportOptions({ ...config, secure: 'starttls' })).toMatchObject({
      secure: false,
      requireTLS: true,
      ignoreTLS: false,
    });
    expect(smtpTransportOptions({ ...config, secure: 'none' })).toMatchObject({
      secure: false,
      requireTLS: false,
      ignoreTLS: true,
    });
  });

  it('smtpTransportOptions() skips AUTH without a username and trusts self-signed only on request', () => {
    const open = smtpTransportOptions({
      ...config,
      username: '',
      host: '127.0.0.1',
      allowSelfSigned: true,
    });
    expect(open.auth).toBeUndefined();
    expect(open.tls).toEqual({ rejectUnauthorized: false, servername: undefined });
  });
});

describe('classifySmtpError', () => {
  const smtpError = (fields: Record<string, unknown>) =>
    Object.assign(new Error(String(fields.message ?? 'failed')), fields);

  it('classifySmtpError() treats 4xx replies as transient and 5xx replies as permanent', () => {
    const temp = classifySmtpError(
      smtpError({
        code: 'EMESSAGE',
        responseCode: 451,
        response: '451 4.3.0 try later',
        command: 'DATA',
      }),
    );
    expect(temp).toMatchObject({ retryable: true, reply: '451 4.3.0 try later' });
    const auth = classifySmtpError(
      smtpError({
        code: 'EAUTH',
        responseCode: 535,
        response: '535 5.7.8 Username and Password not accepted',
        command: 'AUTH PLAIN',
      }),
    );
    expect(auth.retryable).toBe(false);
    expect(auth.message).toContain('535 5.7.8 Username and Password not accepted');
  });

  it('classifySmtpError() treats connection failures as transient', () => {
    for (const code of ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS']) {
      expect(
        classifySmtpError(smtpError({ code, message: 'connect ECONNREFUSED' })).retryable,
      ).toBe(true);
    }
  });

  it('classifySmtpError() treats untrusted certificates and a wrong TLS mode as permanent', () => {
    const cert = classifySmtpError(
      smtpError({ code: 'ESOCKET', message: 'self-signed certificate' }),
    );
    expect(cert.retryable).toBe(false);
    expect(cert.message).toContain('allowSelfSigned');
    const mode = classifySmtpError(
      smtpError({ code: 'ESOCKET', message: 'ssl3_get_record:wrong version number' }),
    );
    expect(mode.retryable).toBe(false);
    expect(mode.message).toContain('starttls');
  });

  it('classifySmtpError() treats local refusals such as missing credentials as permanent', () => {
    expect(
      classifySmtpError(smtpError({ code: 'EAUTH', message: 'Missing credentials for "PLAIN"' }))
        .retryable,
    ).toBe(false);
  });
});

describe('createEmailAdapter', () => {
  const adapter = createEmailAdapter();

  it('declares password as secret, text and html, and a required recipient', () => {
    expect(adapter.type).toBe('email');
    expect(adapter.secretFields).toEqual(['password']);
    expect(adapter.contentTypes).toEqual(['text', 'html']);
    expect(adapter.fixedRecipient).toBe('required');
    expect(adapter.supportsDynamicRecipients).toBe(true);
    expect(adapter.validateRecipient?.('x')).toBe('"x" is not an email address');
  });

  it('emailConfigSchema refuses an unknown security mode and a sender that is not an address', () => {
    expect(emailConfigSchema.safeParse({ ...config, secure: 'ssl' }).success).toBe(false);
    expect(emailConfigSchema.safeParse({ ...config, from: 'ops' }).success).toBe(false);
    expect(
      emailConfigSchema.parse({ host: 'h', port: 25, secure: 'none', from: 'a@b.io' }),
    ).toEqual({
      host: 'h',
      port: 25,
      secure: 'none',
      username: '',
      password: '',
      from: 'a@b.io',
      fromName: '',
      allowSelfSigned: false,
    });
  });
});
