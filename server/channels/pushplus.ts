import type { z } from 'zod';

import { PUSHPLUS_DEFAULT_BASE_URL, pushPlusConfig } from '../../contract/channel-kinds/pushplus';
import { withAttachmentLinks } from './attachment-links';
import {
  configOf,
  defineAdapter,
  type AdapterRuntime,
  type ContentType,
  type OutboundMessage,
} from './channel-adapter';
import { chinaDay, nextChinaMidnight } from './day-counts';
import { DeliveryError } from './delivery-error';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import { assertHttpOkWith, jsonObjectOf, numberField, stringField } from './platform-reply';
import { withUrlLink } from './url-link';

export { PUSHPLUS_DEFAULT_BASE_URL };

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const pushPlusConfigSchema = pushPlusConfig.schema;
export type PushPlusConfig = z.infer<typeof pushPlusConfigSchema>;

/** PushPlus keeps titles to 100 characters. */
export const PUSHPLUS_TITLE_MAX = 100;
/**
 * PushPlus drops a message whose `timestamp` is older than its own clock when it gets to it
 * (its documentation: 服务器时间戳大于此时间戳,则消息不会发送). Each attempt sends its own
 * time plus this grace: a request held up longer than that is dropped rather than delivered
 * late, and a retry carries a fresh one.
 */
export const PUSHPLUS_TIMESTAMP_GRACE_MS = 5 * 60_000;

/** The JSON body of POST {baseUrl}/send. */
export interface PushPlusBody {
  token: string;
  title: string;
  content: string;
  template: 'html' | 'txt' | 'json' | 'markdown';
  topic?: string;
  channel?: string;
  to?: string;
  timestamp: number;
}

const TEMPLATE_OF: Record<ContentType, PushPlusBody['template']> = {
  text: 'txt',
  html: 'html',
  markdown: 'markdown',
};

/**
 * The body of one message. `to`: the delivery's recipient (an instance with dynamic
 * recipients, one friend token each) over the channel's own.
 */
export function buildPushPlusBody(
  config: Pick<PushPlusConfig, 'token' | 'template' | 'topic' | 'channel' | 'to'>,
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url' | 'recipient'>,
  now: number,
): PushPlusBody {
  const template = config.template === 'auto' ? TEMPLATE_OF[message.contentType] : config.template;
  const content = withUrlLink(message.content, message.url, message.contentType);
  const title = [...message.title.trim()].slice(0, PUSHPLUS_TITLE_MAX).join('');
  const to = message.recipient?.trim() || config.to;
  return {
    token: config.token,
    title,
    // PushPlus requires a content: a message of a title alone repeats it.
    content: content || title,
    template,
    ...(config.topic && { topic: config.topic }),
    ...(config.channel && { channel: config.channel }),
    ...(to && { to }),
    timestamp: now + PUSHPLUS_TIMESTAMP_GRACE_MS,
  };
}

/** What PushPlus's answer came to: accepted (its serial number), or the day is closed (900). */
export type PushPlusAnswer = { accepted: true; serial: string } | { closed: string };

/**
 * PushPlus answers `{code, msg, data}` with HTTP 200; `code` 200 is accepted (sending is
 * asynchronous: `data` is the message's serial number). Its return codes: 900 the account is
 * restricted for making too many requests (today is over for it); 903 bad token; 905 not
 * real-name verified; 888 out of credits; 999 a validation error; 500 a system error. Throws a
 * DeliveryError for every refusal but 900.
 */
export function readPushPlusAnswer(res: HttpResponse): PushPlusAnswer {
  const body = jsonObjectOf(res);
  const msg = stringField(body, 'msg');
  assertHttpOkWith(res, 'PushPlus', { reason: msg });
  const code = numberField(body, 'code');
  const reply = { reply: replyOf(res) };
  const said = `PushPlus code ${code}${msg ? `: ${msg}` : ''}`;
  switch (code) {
    case 200:
      return { accepted: true, serial: stringField(body, 'data') ?? String(body?.data ?? '') };
    case 900:
      return { closed: said };
    case 903:
      throw DeliveryError.permanent(
        `${said} (the token is not valid: copy it again from the PushPlus user centre)`,
        reply,
      );
    case 905:
      throw DeliveryError.permanent(
        `${said} (the account is not real-name verified: verify it on pushplus.plus)`,
        reply,
      );
    case 888:
      throw DeliveryError.permanent(`${said} (the account is out of credits)`, reply);
    case 999:
      throw DeliveryError.permanent(said, reply);
    case 500:
      throw DeliveryError.transient(said, reply);
    case undefined:
      throw DeliveryError.transient(
        `PushPlus answered without a code: ${res.text.slice(0, 200) || '(empty)'}`,
        reply,
      );
    default:
      throw DeliveryError.permanent(said, reply);
  }
}

/** When the channel's day ends, and the reason a send waits for it. */
function waitForTomorrow(reason: string, now: number): DeliveryError {
  const until = nextChinaMidnight(now);
  return DeliveryError.deferred(
    `${reason}; sends wait until ${new Date(until).toISOString()} (midnight, China time)`,
    until,
  );
}

/**
 * Takes one of the channel's sends of today (China time), or throws the wait for tomorrow. A
 * channel not saved yet (a test from the new-channel form, id 0) has no count.
 */
async function takeTodaysSend(
  config: PushPlusConfig,
  message: OutboundMessage,
  runtime: AdapterRuntime,
  now: number,
): Promise<string | null> {
  if (message.channelId <= 0) return null;
  const day = chinaDay(now);
  const taken = await runtime.dayCounts.take(message.channelId, day, config.dailyLimit);
  if (taken.taken) return day;
  throw waitForTomorrow(
    taken.closedReason ??
      `PushPlus daily limit reached: ${taken.sent} of ${config.dailyLimit} sends today`,
    now,
  );
}

/** PushPlus (pushplus.plus): a WeChat message to yourself, a topic's members, or friends. */
export function createPushPlusAdapter() {
  return defineAdapter({
    type: 'pushplus',
    label: 'PushPlus',
    ...configOf(pushPlusConfig),
    contentTypes: ['text', 'html', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: true,
    fixedRecipient: 'none',
    validateRecipient: (recipient) =>
      /^[^\s,]{1,64}$/.test(recipient)
        ? null
        : `"${recipient.slice(0, 80)}" is not a PushPlus friend token (one token, no spaces or commas)`,
    async send(config, given, runtime) {
      // Files reach the reader as links at the end of the content, in its format.
      const message = withAttachmentLinks(given, { images: true });
      const now = runtime.clock.now();
      const day = await takeTodaysSend(config, message, runtime, now);
      let res: HttpResponse;
      let answer: PushPlusAnswer;
      try {
        res = await httpRequest({
          url: `${config.baseUrl}/send`,
          body: buildPushPlusBody(config, message, now),
          options: config,
        });
        answer = readPushPlusAnswer(res);
      } catch (err) {
        // PushPlus answered and did not take the message: the send is not spent. A request
        // that got no answer at all may have been taken, so it stays counted.
        if (day && err instanceof DeliveryError && err.reply !== undefined)
          await runtime.dayCounts.giveBack(message.channelId, day);
        throw err;
      }
      if ('closed' in answer) {
        if (day) {
          await runtime.dayCounts.close(message.channelId, day, answer.closed);
          await runtime.dayCounts.giveBack(message.channelId, day);
        }
        throw waitForTomorrow(answer.closed, now);
      }
      // Sending is asynchronous: the serial number is what PushPlus knows the message by.
      return { reply: `serial ${answer.serial || '(none)'}; ${replyOf(res)}` };
    },
  });
}
