import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { httpOptionsSchema, httpOptionsUi, optionalText, serverUrlField } from './fields';

export const PUSHPLUS_DEFAULT_BASE_URL = 'https://www.pushplus.plus';

/**
 * How PushPlus renders `content`. `auto` (Herald's) follows the instance's format: text as
 * `txt`, HTML as `html`, Markdown as `markdown`; the others are PushPlus's own templates.
 */
export const PUSHPLUS_TEMPLATES = ['auto', 'html', 'txt', 'json', 'markdown'] as const;
/** Where PushPlus passes the message on; left out, its default (the WeChat official account). */
export const PUSHPLUS_CHANNELS = ['wechat', 'webhook', 'cp', 'mail', 'sms'] as const;

/**
 * The sends a day Herald allows a channel by default: PushPlus bans an account that makes more
 * than 200 requests in a day (its return code 900), so some are left for other clients.
 */
export const PUSHPLUS_DEFAULT_DAILY_LIMIT = 180;

/** PushPlus: the user token, a template, optionally a topic (group), channel and friends. */
export const pushPlusConfig = declareChannelConfig({
  schema: z
    .object({
      /** The token of the PushPlus user centre (pushplus.plus → 个人中心). */
      token: z
        .string()
        .trim()
        .min(1, 'token is required')
        .max(128)
        .regex(/^[^\s,]+$/, 'token is one token, without spaces or commas'),
      template: z.enum(PUSHPLUS_TEMPLATES).default('auto'),
      /** A group code (群组编码): the message goes to the group's members instead of to you. */
      topic: optionalText(64),
      channel: z.preprocess(
        (value: unknown) => (value === '' ? undefined : value),
        z.enum(PUSHPLUS_CHANNELS).optional(),
      ),
      /** Friend tokens (or WeCom user ids on `cp`), separated by commas. */
      to: optionalText(2000),
      /** Sends a day (midnight to midnight, China time) before the rest wait for the next day. */
      dailyLimit: z.number().int().min(1).max(100_000).default(PUSHPLUS_DEFAULT_DAILY_LIMIT),
      baseUrl: serverUrlField(PUSHPLUS_DEFAULT_BASE_URL),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    token: { secret: true, help: 'channelHelp.pushPlusToken' },
    template: {
      label: 'channelConfig.pushPlusTemplate',
      help: 'channelHelp.pushPlusTemplate',
      options: [
        { value: 'auto', label: 'channelConfig.pushPlusTemplateAuto' },
        { value: 'html', label: 'html' },
        { value: 'txt', label: 'txt' },
        { value: 'json', label: 'json' },
        { value: 'markdown', label: 'markdown' },
      ],
    },
    topic: { label: 'channelConfig.pushPlusTopic', help: 'channelHelp.pushPlusTopic' },
    channel: {
      label: 'channelConfig.pushPlusChannel',
      help: 'channelHelp.pushPlusChannel',
      options: PUSHPLUS_CHANNELS.map((value) => ({ value, label: value })),
    },
    to: { label: 'channelConfig.pushPlusTo', help: 'channelHelp.pushPlusTo' },
    dailyLimit: {
      label: 'channelConfig.pushPlusDailyLimit',
      help: 'channelHelp.pushPlusDailyLimit',
      placeholder: String(PUSHPLUS_DEFAULT_DAILY_LIMIT),
    },
    baseUrl: {
      label: 'channelConfig.pushPlusBaseUrl',
      help: 'channelHelp.pushPlusBaseUrl',
      destination: true,
      advanced: true,
    },
    ...httpOptionsUi,
  },
});
