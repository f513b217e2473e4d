import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { httpOptionsSchema, httpOptionsUi } from './fields';

function hasKey(url: string): boolean {
  try {
    return Boolean(new URL(url).searchParams.get('key'));
  } catch {
    return false;
  }
}

/** WeCom group robot: the webhook URL, whose key is its only credential. */
export const weComConfig = declareChannelConfig({
  schema: z
    .object({
      /** The full …/cgi-bin/webhook/send?key=… URL; the key in it is the robot's only credential. */
      webhookUrl: z
        .string()
        .trim()
        .regex(/^https?:\/\/\S+$/, 'webhookUrl must be an https:// URL')
        .refine(hasKey, {
          message: 'webhookUrl must be the robot’s full webhook URL, including ?key=…',
        }),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    webhookUrl: {
      secret: true,
      destination: true,
      placeholder: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…',
      help: 'channelHelp.wecomWebhook',
    },
    ...httpOptionsUi,
  },
});
