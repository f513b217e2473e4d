import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { httpOptionsSchema, httpOptionsUi, optionalBaseUrlField } from './fields';

export const WECHAT_DEFAULT_API_BASE_URL = 'https://api.weixin.qq.com';

/** WeChat official (test) account: app credentials and the message template. */
export const weChatOfficialConfig = declareChannelConfig({
  schema: z
    .object({
      appId: z.string().trim().min(1, 'appId is required'),
      appSecret: z.string().trim().min(1, 'appSecret is required'),
      /** A template whose text uses {{title.DATA}} and {{content.DATA}} (Message Nest's convention). */
      templateId: z.string().trim().min(1, 'templateId is required'),
      apiBaseUrl: optionalBaseUrlField(/^https?:\/\/\S+$/, 'apiBaseUrl must be an https:// URL'),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    appId: { placeholder: 'wx…', destination: true },
    appSecret: { secret: true },
    templateId: { help: 'channelHelp.wechatTemplate' },
    apiBaseUrl: {
      placeholder: WECHAT_DEFAULT_API_BASE_URL,
      help: 'channelHelp.wechatApiBase',
      advanced: true,
      destination: true,
    },
    ...httpOptionsUi,
  },
});
