import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { httpOptionsSchema, httpOptionsUi, serverUrlField } from './fields';

export const TELEGRAM_API = 'https://api.telegram.org';

/** Telegram bot: its token and the chat it posts to. */
export const telegramConfig = declareChannelConfig({
  schema: z
    .object({
      /** From @BotFather: `123456:ABC-DEF…`. */
      botToken: z
        .string()
        .trim()
        .regex(/^\d+:[A-Za-z0-9_-]+$/, 'botToken must look like 123456789:AAE… (from @BotFather)'),
      /** A numeric chat id (groups are negative, -100… for supergroups) or @channelusername. */
      chatId: z.preprocess(
        (v) => (typeof v === 'number' && Number.isInteger(v) ? String(v) : v),
        z
          .string()
          .trim()
          .regex(
            /^(-?\d+|@[A-Za-z][A-Za-z0-9_]{3,})$/,
            'chatId must be a numeric chat id (e.g. -1001234567890) or @channelusername',
          ),
      ),
      /** A forum topic of the group to post into. */
      messageThreadId: z.number().int().positive().optional(),
      /** Deliver silently (no sound on the recipients' devices). */
      disableNotification: z.boolean().optional(),
      serverUrl: serverUrlField(TELEGRAM_API),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    botToken: { secret: true, placeholder: '123456789:AAE…' },
    chatId: { placeholder: '-1001234567890', help: 'channelHelp.telegramChatId' },
    messageThreadId: {},
    disableNotification: {},
    serverUrl: { help: 'channelHelp.serverUrlDefault', advanced: true, destination: true },
    ...httpOptionsUi,
  },
});
