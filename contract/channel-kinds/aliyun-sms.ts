import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { emptyToUndefined, httpOptionsSchema, httpOptionsUi, serverUrlField } from './fields';

export const ALIYUN_SMS_DEFAULT_ENDPOINT = 'https://dysmsapi.aliyuncs.com';
export const ALIYUN_SMS_DEFAULT_PARAM_MAP: Readonly<Record<string, string>> = {
  content: '{{content}}',
};
/** The markers a paramMap value may use. */
export const ALIYUN_SMS_MARKERS = ['title', 'content', 'url'] as const;

// Aliyun's template variables are ${name}: letters, digits and underscores.
const VARIABLE = /^[A-Za-z0-9_]{1,64}$/;
const TEMPLATE_CODE = /^\S{1,64}$/;
const TEMPLATE_CODE_RULE = 'templateCode must be the template’s code, e.g. SMS_123456789';

/** An error text unless `code` is a template code (one instance's own, say), or null. */
export function validateTemplateCode(code: string): string | null {
  return TEMPLATE_CODE.test(code.trim()) ? null : TEMPLATE_CODE_RULE;
}

/** Aliyun SMS: AccessKey, signature, template and how the message fills the template. */
export const aliyunSmsConfig = declareChannelConfig({
  schema: z
    .object({
      accessKeyId: z.string().trim().min(1, 'accessKeyId is required').max(128),
      accessKeySecret: z.string().trim().min(1, 'accessKeySecret is required').max(256),
      /** An approved signature (签名), sent as 【signName】 before the text. */
      signName: z.string().trim().min(1, 'signName is required').max(64),
      /**
       * An approved template's code, e.g. SMS_123456789: the default of the channel's instances,
       * each of which may name its own (as Message Nest keeps it on each instance). Optional:
       * a channel without one sends only through instances that name theirs.
       */
      templateCode: z.preprocess(
        (v) => (v === '' || v === null ? undefined : v),
        z.string().trim().regex(TEMPLATE_CODE, TEMPLATE_CODE_RULE).optional(),
      ),
      /**
       * Template variable → value. A value may hold {{title}}, {{content}} and {{url}}; the rest
       * of it is literal. Default {"content":"{{content}}"}, Message Nest's mapping.
       */
      paramMap: z
        .record(
          z
            .string()
            .regex(VARIABLE, 'paramMap keys are template variable names (letters, digits, _)'),
          z.string().max(500),
        )
        .refine((m) => Object.keys(m).length <= 50, 'paramMap holds at most 50 variables')
        .default({ ...ALIYUN_SMS_DEFAULT_PARAM_MAP }),
      regionId: z.preprocess(
        emptyToUndefined,
        z
          .string()
          .trim()
          .regex(/^[a-z0-9-]{2,32}$/, 'regionId must be a region id such as cn-hangzhou')
          .default('cn-hangzhou'),
      ),
      /** dysmsapi's address; another region's (dysmsapi.ap-southeast-1.aliyuncs.com) or a proxy. */
      endpoint: serverUrlField(ALIYUN_SMS_DEFAULT_ENDPOINT),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    accessKeyId: { placeholder: 'LTAI…' },
    accessKeySecret: { secret: true },
    signName: { help: 'channelHelp.aliyunSignName' },
    templateCode: { placeholder: 'SMS_123456789', help: 'channelHelp.aliyunTemplateCode' },
    paramMap: {
      formDefault: { ...ALIYUN_SMS_DEFAULT_PARAM_MAP },
      keyLabel: 'channelConfig.paramName',
      addLabel: 'channels.addParam',
      help: 'channelHelp.aliyunParamMap',
    },
    regionId: { advanced: true },
    endpoint: { help: 'channelHelp.aliyunEndpoint', advanced: true, destination: true },
    ...httpOptionsUi,
  },
  notes: [
    {
      id: 'aliyun-markers',
      text: 'channelHelp.aliyunMarkers',
      // {…} is i18n syntax: the markers go in as a value.
      params: { markers: ALIYUN_SMS_MARKERS.map((m) => `{{${m}}}`).join(' ') },
      tone: 'hint',
      field: 'paramMap',
    },
  ],
});
