import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { httpOptionsSchema, httpOptionsUi, optionalText, webhookUrlField } from './fields';

/** Feishu / Lark custom bot: the v2 webhook URL and, with signature verification, its secret. */
export const feishuConfig = declareChannelConfig({
  schema: z
    .object({
      webhookUrl: webhookUrlField('Feishu/Lark bot').refine(
        (url) => !/\/open-apis\/bot\/hook\//.test(url),
        {
          message:
            'this is the legacy v1 webhook URL; copy the bot’s …/open-apis/bot/v2/hook/… URL',
        },
      ),
      /** The bot's "signature verification" secret (签名校验), when that security setting is on. */
      secret: optionalText(200),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    webhookUrl: {
      secret: true,
      destination: true,
      placeholder: 'https://open.feishu.cn/open-apis/bot/v2/hook/…',
      help: 'channelHelp.feishuWebhook',
    },
    secret: { secret: true, help: 'channelHelp.feishuSecret' },
    ...httpOptionsUi,
  },
});
