import { z } from 'zod';

import { declareChannelConfig } from './declare';
import {
  emptyToUndefined,
  httpOptionsSchema,
  httpOptionsUi,
  optionalText,
  requiredServerUrlField,
} from './fields';

/** Where a Turbo key (SCT…) sends. */
export const SERVERCHAN_TURBO_BASE_URL = 'https://sctapi.ftqq.com';
/**
 * A Server酱³ key: `sctp{uid}t…`. The uid names the key's own host, `{uid}.push.ft07.com`, as
 * the official SDK (easychen/serverchan-sdk) and the Server酱³ API page say.
 */
export const SERVERCHAN3_KEY = /^sctp(\d+)t/;

/** Server酱 (ServerChan): a SendKey, Turbo (sct.ftqq.com) or Server酱³ (sc3.ft07.com). */
export const serverChanConfig = declareChannelConfig({
  schema: z
    .object({
      /** The SendKey of sct.ftqq.com (SCT…) or sc3.ft07.com (sctp{uid}t…). */
      sendKey: z
        .string()
        .trim()
        .min(1, 'sendKey is required')
        .max(200)
        .regex(/^[A-Za-z0-9_-]+$/, 'sendKey holds letters, digits, - and _ only'),
      /** Server酱³ only: tags, separated by |. */
      tags: optionalText(200),
      /** Turbo only: hide the calling IP in the message. */
      noip: z.boolean().default(false),
      /** A compatible relay in place of the platform's hosts (see docs/channels.md). */
      baseUrl: z.preprocess(emptyToUndefined, requiredServerUrlField().optional()),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    sendKey: { secret: true, help: 'channelHelp.serverChanSendKey' },
    tags: {
      label: 'channelConfig.serverChanTags',
      help: 'channelHelp.serverChanTags',
      placeholder: 'server|alert',
    },
    noip: { label: 'channelConfig.serverChanNoip', help: 'channelHelp.serverChanNoip' },
    baseUrl: {
      label: 'channelConfig.serverChanBaseUrl',
      help: 'channelHelp.serverChanBaseUrl',
      destination: true,
      advanced: true,
    },
    ...httpOptionsUi,
  },
});
