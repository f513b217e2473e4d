import { createHash } from 'node:crypto';
import { isIP } from 'node:net';

import { convert as htmlToText } from 'html-to-text';
import type { Transporter } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { z } from 'zod';

import type { Priority } from '../../contract/priority';
import { EMAIL_ADDRESS, SMTP_SECURITY, emailConfig } from '../../contract/channel-kinds/email';
import {
  configOf,
  defineAdapter,
  type MessageAttachment,
  type OutboundMessage,
} from './channel-adapter';
import { localNetworkHint } from './local-network-hint';
import { DeliveryError } from './delivery-error';

export { SMTP_SECURITY };
/** Most addresses one recipient string may hold. */
export const MAX_EMAIL_RECIPIENTS = 50;

const CONNECTION_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 60_000;

// The sender's own check, also for recipients: deliberately loose (see EMAIL_ADDRESS).
const ADDRESS = EMAIL_ADDRESS;

/**
 * nodemailer's three levels, which set X-Priority, X-MSMail-Priority and Importance together;
 * 'normal' sets none of them, as mail clients assume normal anyway.
 */
export function emailPriority(priority: Priority | null): Mail.Options['priority'] | undefined {
  if (priority === null) return undefined;
  return priority <= 2 ? 'low' : priority >= 4 ? 'high' : 'normal';
}

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const emailConfigSchema = emailConfig.schema;
export type EmailConfig = z.infer<typeof emailConfigSchema>;

/** The addresses in a recipient string ("a@x.org, b@y.org"); commas or semicolons separate. */
export function parseEmailRecipients(recipient: string): string[] {
  return recipient
    .split(/[,;]/)
    .map((a) => a.trim())
    .filter(Boolean);
}

/** Returns an error text naming the first bad address, or null when every address is fine. */
export function validateEmailRecipients(recipient: string): string | null {
  const addresses = parseEmailRecipients(recipient);
  if (addresses.length === 0) return 'no email address given';
  if (addresses.length > MAX_EMAIL_RECIPIENTS) {
    return `too many email addresses: ${addresses.length}, at most ${MAX_EMAIL_RECIPIENTS}`;
  }
  const bad = addresses.find((a) => a.length > 254 || !ADDRESS.test(a));
  if (bad !== undefined) return `"${bad}" is not an email address`;
  return null;
}

/** A file of the message with its bytes, read before the mail is built. */
export interface EmailFile {
  attachment: Pick<MessageAttachment, 'filename' | 'mime' | 'inline'>;
  data: Buffer;
}

/**
 * The mail for one delivery. Text instances send text/plain; HTML instances send
 * multipart/alternative with a plain-text rendering first and the HTML last (clients show the
 * last part they can), both UTF-8. nodemailer encodes non-ASCII subjects and names per RFC 2047.
 * Files are real attachments (multipart/mixed); in an HTML mail each image is also shown
 * inline at the end of the body, by `cid` (multipart/related), so no client has to fetch it.
 */
export function buildEmail(
  config: Pick<EmailConfig, 'from' | 'fromName'>,
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType'> &
    Partial<Pick<OutboundMessage, 'priority' | 'silent'>>,
  to: string[],
  files: readonly EmailFile[] = [],
): Mail.Options {
  const mail: Mail.Options = {
    from: config.fromName ? { name: config.fromName, address: config.from } : config.from,
    to,
    subject: message.title,
    // Keeps vacation responders and ticket systems from answering a notification.
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
  // Softened (quiet hours): low priority (X-Priority 5, X-MSMail-Priority Low, Importance Low).
  const priority = message.silent ? 'low' : emailPriority(message.priority ?? null);
  if (priority) mail.priority = priority;
  const html = message.contentType === 'html';
  if (html) {
    mail.text = htmlToPlainText(message.content);
    mail.html = message.content + inlineImagesHtml(files);
  } else {
    mail.text = message.content;
  }
  if (files.length > 0) {
    mail.attachments = files.map(({ attachment, data }, i) => {
      const inline = html && attachment.inline;
      return {
        filename: attachment.filename,
        content: data,
        contentType: attachment.mime,
        // Numbered, not the file's id: the id is the secret part of its URL on Herald.
        ...(inline ? { cid: emailCid(i), contentDisposition: 'inline' as const } : {}),
      };
    });
  }
  return mail;
}

/** The Content-ID of the mail's i-th file, unique within the mail. */
export function emailCid(i: number): string {
  return `file${i + 1}@herald`;
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The `<img src="cid:…">` block that shows an HTML mail's images after its content. */
function inlineImagesHtml(files: readonly EmailFile[]): string {
  const images = files
    .map(({ attachment }, i) =>
      attachment.inline
        ? `<p><img src="cid:${emailCid(i)}" alt="${escapeHtml(attachment.filename)}" style="max-width:100%"></p>`
        : '',
    )
    .filter(Boolean);
  return images.length ? `\n${images.join('\n')}` : '';
}

/** The plain-text alternative of an HTML body. */
export function htmlToPlainText(html: string): string {
  return htmlToText(html, {
    wordwrap: 100,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
    ],
  });
}

/** nodemailer's transport settings for a config. */
export function smtpTransportOptions(config: EmailConfig): SMTPTransport.Options {
  return {
    host: config.host,
    port: config.port,
    secure: config.secure === 'tls',
    // starttls must not fall back to plain text when the server does not offer STARTTLS.
    requireTLS: config.secure === 'starttls',
    // none means none: no opportunistic STARTTLS that could fail on a LAN relay's bad cert.
    ignoreTLS: config.secure === 'none',
    auth: config.username ? { user: config.username, pass: config.password } : undefined,
    tls: {
      rejectUnauthorized: !config.allowSelfSigned,
      servername: isIP(config.host) ? undefined : config.host,
    },
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: CONNECTION_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  };
}

const TLS_TRUST = /certificate|self[- ]signed|altnames|does not match/i;
const TLS_MISMATCH =
  /wrong version number|unknown protocol|packet length too long|ssl3_get_record/i;

interface SmtpErrorLike {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  message?: string;
}

/**
 * Tags an SMTP failure: 4xx replies and connection trouble are transient; 5xx replies (bad
 * credentials, refused recipient), untrusted certificates and a TLS mode the port does not
 * speak are permanent, with the server's reply kept for the log.
 */
export function classifySmtpError(
  err: unknown,
  host: string | null = null,
  platform: NodeJS.Platform = process.platform,
): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const e = (err ?? {}) as SmtpErrorLike;
  const detail = (e.message ?? String(err)).replace(/\s+/g, ' ').trim();
  const reply = e.response;
  const during = e.command ? ` (${e.command})` : '';

  if (typeof e.responseCode === 'number' && e.responseCode >= 400) {
    const hint =
      e.command === 'STARTTLS'
        ? '; the server does not offer STARTTLS, try secure "tls" or "none"'
        : '';
    const text = `SMTP server answered ${e.responseCode}${during}: ${reply ?? detail}${hint}`;
    return e.responseCode >= 500
      ? DeliveryError.permanent(text, { reply: reply ?? detail })
      : DeliveryError.transient(text, { reply: reply ?? detail });
  }
  const mismatch = TLS_MISMATCH.exec(detail);
  if (mismatch) {
    return DeliveryError.permanent(
      `TLS handshake failed (${mismatch[0]}): the port does not speak implicit TLS; try secure "starttls" or "none"`,
    );
  }
  if (TLS_TRUST.test(detail) && e.code !== 'EAUTH') {
    return DeliveryError.permanent(
      `the SMTP server's certificate is not trusted (${detail}); set allowSelfSigned if it is self-signed`,
    );
  }
  if (e.code === 'EAUTH' || e.code === 'EENVELOPE' || e.code === 'EMESSAGE') {
    return DeliveryError.permanent(`SMTP refused the mail${during}: ${detail}`);
  }
  const hint = localNetworkHint(err, host, platform);
  return DeliveryError.transient(
    `SMTP connection failed${during}: ${detail}${hint ? `; ${hint}` : ''}`,
  );
}

interface CachedTransport {
  fingerprint: string;
  transporter: Transporter<SMTPTransport.SentMessageInfo>;
}

/**
 * SMTP email through nodemailer. One transporter is cached per channel and rebuilt when its
 * settings change. It is not pooled: each send opens, uses and QUITs its own connection, so no
 * idle socket outlives a delivery (adapters have no shutdown hook) and mail volume is low.
 */
export function createEmailAdapter() {
  const transports = new Map<number, CachedTransport>();

  async function transportFor(channelId: number, config: EmailConfig) {
    // Loaded on the first mail, not at start: about 10 MB and 0.1 s a Herald without an email
    // channel never needs. Awaited before the cache is read, so concurrent sends share one.
    const { default: nodemailer } = await import('nodemailer');
    const options = smtpTransportOptions(config);
    const fingerprint = createHash('sha256').update(JSON.stringify(options)).digest('hex');
    const cached = transports.get(channelId);
    if (cached?.fingerprint === fingerprint) return cached.transporter;
    cached?.transporter.close();
    const transporter = nodemailer.createTransport(options);
    transports.set(channelId, { fingerprint, transporter });
    return transporter;
  }

  return defineAdapter({
    type: 'email',
    label: 'Email (SMTP)',
    ...configOf(emailConfig),
    contentTypes: ['text', 'html'],
    supportsMentions: false,
    supportsDynamicRecipients: true,
    fixedRecipient: 'required',
    validateRecipient: validateEmailRecipients,
    async send(config, message) {
      const recipient = message.recipient ?? '';
      const invalid = validateEmailRecipients(recipient);
      if (invalid) throw DeliveryError.permanent(invalid);
      const to = parseEmailRecipients(recipient);
      const files = await Promise.all(
        (message.attachments ?? []).map(async (attachment) => ({
          attachment,
          data: await attachment.read(),
        })),
      );
      let info: SMTPTransport.SentMessageInfo;
      try {
        info = await (
          await transportFor(message.channelId, config)
        ).sendMail(buildEmail(config, message, to, files));
      } catch (err) {
        throw classifySmtpError(err, config.host);
      }
      const rejected = info.rejected.map(String);
      return {
        reply:
          `${info.response}` +
          (rejected.length ? `; refused recipients: ${rejected.join(', ')}` : ''),
      };
    },
  });
}
