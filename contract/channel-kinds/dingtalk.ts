import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { blankToUndefined, httpOptionsSchema, httpOptionsUi } from './fields';

function hasAccessToken(url: string): boolean {
  try {
    return Boolean(new URL(url).searchParams.get('access_token'));
  } catch {
    return false;
  }
}

/** DingTalk group robot: its webhook URL and, with "加签", its signing secret. */
export const dingTalkConfig = declareChannelConfig({
  schema: z
    .object({
      webhookUrl: z
        .string()
        .trim()
        .regex(/^https?:\/\/\S+$/, 'webhookUrl must be an https:// URL')
        .refine(hasAccessToken, {
          message: 'webhookUrl must be the robot’s full URL, including ?access_token=…',
        }),
      /** The robot's signing secret (SEC…), when its security setting is "加签"/sign. */
      secret: z.preprocess(blankToUndefined, z.string().trim().optional()),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    webhookUrl: {
      secret: true,
      destination: true,
      placeholder: 'https://oapi.dingtalk.com/robot/send?access_token=…',
      help: 'channelHelp.dingtalkWebhook',
    },
    secret: { secret: true, placeholder: 'SEC…', help: 'channelHelp.dingtalkSecret' },
    ...httpOptionsUi,
  },
});
