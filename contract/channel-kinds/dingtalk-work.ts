import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { emptyToUndefined, httpOptionsSchema, httpOptionsUi, serverUrlField } from './fields';

export const DINGTALK_WORK_DEFAULT_BASE_URL = 'https://oapi.dingtalk.com';

/**
 * asyncsend_v2's list sizes (dingtalk.oapi.message.corpconversation.asyncsend_v2,
 * developer.alibaba.com apiId=37692): userid_list at most 5,000, dept_id_list at most 500.
 */
export const DINGTALK_WORK_LIMITS = { userIds: 5000, deptIds: 500 } as const;

/** A DingTalk userid: the org's own ids (letters, digits, _ and -), up to 64 characters. */
export const DINGTALK_USER_ID = /^[A-Za-z0-9_.@-]{1,64}$/;

/** A comma-separated list ("manager1,manager2") as its items; numbers as text. */
const commaList = (value: unknown): unknown =>
  typeof value === 'string'
    ? value.split(',')
    : Array.isArray(value)
      ? value.map((v) => (typeof v === 'number' ? String(v) : v))
      : emptyToUndefined(value);

/**
 * DingTalk work notice (工作通知) from an org's internal app: its AppKey, AppSecret and
 * AgentId, and who receives the channel's messages (users, departments or everyone).
 */
export const dingTalkWorkConfig = declareChannelConfig({
  schema: z
    .object({
      /** 钉钉开发者后台 → the app → 凭证与基础信息 → AppKey (Client ID). */
      appKey: z.string().trim().min(1, 'appKey is required').max(128),
      appSecret: z.string().trim().min(1, 'appSecret is required').max(256),
      /** The app's AgentId (same page); a number. */
      agentId: z.preprocess(
        (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
        z
          .number({ message: 'agentId must be the app’s numeric AgentId' })
          .int('agentId must be the app’s numeric AgentId')
          .positive('agentId must be the app’s numeric AgentId'),
      ),
      userIds: z.preprocess(
        commaList,
        z
          .array(
            z
              .string()
              .trim()
              .regex(DINGTALK_USER_ID, 'userIds are DingTalk userids (letters, digits, _ and -)'),
          )
          .max(DINGTALK_WORK_LIMITS.userIds, 'userIds holds at most 5000 users')
          .optional(),
      ),
      /** Department ids; a department includes its sub-departments. */
      deptIds: z.preprocess(
        commaList,
        z
          .array(
            z
              .string()
              .trim()
              .regex(/^\d{1,20}$/, 'deptIds are numeric department ids'),
          )
          .max(DINGTALK_WORK_LIMITS.deptIds, 'deptIds holds at most 500 departments')
          .optional(),
      ),
      /** Everyone in the org; DingTalk allows this at most 3 times a day. */
      toAllUser: z.boolean().optional(),
      /** oapi.dingtalk.com, or a compatible relay of it. */
      baseUrl: serverUrlField(DINGTALK_WORK_DEFAULT_BASE_URL),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    appKey: { placeholder: 'ding…', help: 'channelHelp.dingtalkWorkAppKey', destination: true },
    appSecret: { secret: true, help: 'channelHelp.dingtalkWorkAppSecret' },
    agentId: { placeholder: '3000000001' },
    userIds: { placeholder: 'manager4220', help: 'channelHelp.dingtalkWorkUserIds' },
    deptIds: { placeholder: '1', help: 'channelHelp.dingtalkWorkDeptIds' },
    toAllUser: { help: 'channelHelp.dingtalkWorkToAllUser' },
    baseUrl: { help: 'channelHelp.dingtalkWorkBaseUrl', advanced: true, destination: true },
    ...httpOptionsUi,
  },
  notes: [
    { id: 'dingtalk-work-once-a-day', text: 'channelHelp.dingtalkWorkOnceADay', tone: 'hint' },
  ],
});
