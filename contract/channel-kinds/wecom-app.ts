import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { httpOptionsSchema, httpOptionsUi, optionalBaseUrlField } from './fields';

export const WECOM_APP_DEFAULT_API_BASE_URL = 'https://qyapi.weixin.qq.com';

/** WeCom self-built app: corp id, the app's AgentId and Secret; recipients are per instance. */
export const weComAppConfig = declareChannelConfig({
  schema: z
    .object({
      /** 企业ID, from 我的企业 → 企业信息 (ww…). */
      corpId: z.string().trim().min(1, 'corpId is required').max(64),
      /** The app's AgentId (应用管理 → the app); Message Nest stored it as a string. */
      agentId: z.preprocess(
        (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
        z
          .number({ message: 'agentId must be the app’s numeric AgentId' })
          .int('agentId must be the app’s numeric AgentId')
          .positive('agentId must be the app’s numeric AgentId'),
      ),
      /** The app's own Secret (not the corp's contacts secret). */
      secret: z.string().trim().min(1, 'secret is required').max(256),
      /** A fixed-IP reverse proxy of qyapi.weixin.qq.com, for the app's trusted-IP rule. */
      apiBaseUrl: optionalBaseUrlField(
        /^https?:\/\/[^\s?#]+$/,
        'apiBaseUrl must be an http:// or https:// URL without ?query',
      ),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    corpId: { placeholder: 'ww…', help: 'channelHelp.wecomAppCorpId', destination: true },
    agentId: { placeholder: '1000002' },
    secret: {
      secret: true,
      label: 'channelConfig.agentSecret',
      help: 'channelHelp.wecomAppSecret',
    },
    apiBaseUrl: {
      placeholder: WECOM_APP_DEFAULT_API_BASE_URL,
      help: 'channelHelp.wecomAppApiBase',
      advanced: true,
      destination: true,
    },
    ...httpOptionsUi,
  },
  notes: [
    {
      id: 'wecom-app-recipients',
      text: 'channelHelp.wecomAppRecipients',
      // vue-i18n reads | and @ as syntax, so the recipient syntax goes in as values.
      params: { example: 'zhangsan|lisi;party:2', bar: '|', all: '@all' },
      tone: 'hint',
    },
  ],
});
