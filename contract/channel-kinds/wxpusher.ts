import { z } from 'zod';

import { declareChannelConfig } from './declare';
import {
  emptyToUndefined,
  httpOptionsSchema,
  httpOptionsUi,
  optionalText,
  serverUrlField,
} from './fields';

export const WXPUSHER_DEFAULT_BASE_URL = 'https://wxpusher.zjiecode.com';

/** `app`: an app's appToken to UIDs and topics; `spt`: simple push (极简推送) to SPT holders. */
export const WXPUSHER_MODES = ['app', 'spt'] as const;
export type WxPusherMode = (typeof WXPUSHER_MODES)[number];

/** WxPusher's contentType: 1 text, 2 HTML, 3 Markdown. */
export const WXPUSHER_CONTENT_TYPES = { text: 1, html: 2, markdown: 3 } as const;

/**
 * WxPusher's documented limits (wxpusher.zjiecode.com/docs/api-reference.html, spt.html):
 * content under 40,000 characters, summary 100, url under 400; at most 2,000 UIDs and 5 topics
 * per message; simple push reaches at most 10 SPTs at once.
 */
export const WXPUSHER_LIMITS = {
  uids: 2000,
  topicIds: 5,
  spts: 10,
  contentChars: 40_000,
  summaryChars: 100,
  urlChars: 400,
} as const;

/** A UID as WxPusher hands them out (UID_…; older accounts have bare ones). */
export const WXPUSHER_UID = /^[A-Za-z0-9_-]{1,128}$/;
const SPT = /^SPT_[A-Za-z0-9_-]{1,128}$/;

/** A comma-separated list ("UID_a,UID_b") as its items; an array as given. */
const commaList = (value: unknown): unknown =>
  typeof value === 'string' ? value.split(',') : emptyToUndefined(value);

/** The SPTs of a config's `spt`: one or more, separated by commas, spaces or new lines. */
export function sptsOf(spt: string | undefined): string[] {
  return [
    ...new Set(
      (spt ?? '')
        .split(/[\s,;]+/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

/** WxPusher: an app (appToken, UIDs, topics) or simple push (SPTs), on the public server or a relay. */
export const wxPusherConfig = declareChannelConfig({
  schema: z
    .object({
      mode: z.preprocess(emptyToUndefined, z.enum(WXPUSHER_MODES).default('app')),
      /** The app's AT_… token (管理后台 → 应用 → appToken); app mode only. */
      appToken: optionalText(256),
      /** Users who follow the app, by UID; app mode. */
      uids: z.preprocess(
        commaList,
        z
          .array(
            z
              .string()
              .trim()
              .regex(
                WXPUSHER_UID,
                'uids are WxPusher UIDs, e.g. UID_xxx (letters, digits, _ and -)',
              ),
          )
          .max(WXPUSHER_LIMITS.uids, `uids holds at most ${WXPUSHER_LIMITS.uids} UIDs`)
          .optional(),
      ),
      /** Topic ids (numbers); every subscriber of a topic gets the message. At most 5. */
      topicIds: z.preprocess(
        (value) =>
          Array.isArray(value)
            ? value.map((v) => (typeof v === 'number' ? String(v) : v))
            : commaList(value),
        z
          .array(
            z
              .string()
              .trim()
              .regex(/^\d{1,12}$/, 'topicIds are numbers'),
          )
          .max(
            WXPUSHER_LIMITS.topicIds,
            `topicIds holds at most ${WXPUSHER_LIMITS.topicIds} topics`,
          )
          .optional(),
      ),
      /** Simple push: one SPT, or up to 10 separated by commas or new lines (sent as sptList). */
      spt: optionalText(2000),
      /**
       * WxPusher's contentType, when the channel should always send one format (the content is
       * converted to it); left out, each instance's own format is sent.
       */
      contentType: z.preprocess(
        (v) => (typeof v === 'string' && /^\s*[123]\s*$/.test(v) ? Number(v) : emptyToUndefined(v)),
        z
          .number({ message: 'contentType must be 1 (text), 2 (HTML) or 3 (Markdown)' })
          .int('contentType must be 1 (text), 2 (HTML) or 3 (Markdown)')
          .min(1, 'contentType must be 1 (text), 2 (HTML) or 3 (Markdown)')
          .max(3, 'contentType must be 1 (text), 2 (HTML) or 3 (Markdown)')
          .optional(),
      ),
      /** The link the message opens (原文链接); a send's own url takes precedence. */
      url: z.preprocess(
        emptyToUndefined,
        z
          .string()
          .trim()
          .max(WXPUSHER_LIMITS.urlChars - 1, 'url must be shorter than 400 characters')
          .regex(/^https?:\/\/\S+$/, 'url must be an http:// or https:// URL')
          .optional(),
      ),
      /** The WxPusher server, or a compatible relay of it. */
      baseUrl: serverUrlField(WXPUSHER_DEFAULT_BASE_URL),
    })
    .extend(httpOptionsSchema.shape)
    .strict()
    .superRefine((cfg, ctx) => {
      if (cfg.mode === 'app') {
        if (!cfg.appToken)
          ctx.addIssue({
            code: 'custom',
            path: ['appToken'],
            message: 'appToken is required (WxPusher admin → the app → appToken)',
          });
        if (cfg.spt)
          ctx.addIssue({
            code: 'custom',
            path: ['spt'],
            message: 'spt is for simple-push mode; an app sends with appToken',
          });
        return;
      }
      const spts = sptsOf(cfg.spt);
      if (spts.length === 0)
        ctx.addIssue({
          code: 'custom',
          path: ['spt'],
          message: 'spt is required in simple-push mode (SPT_…)',
        });
      const bad = spts.find((s) => !SPT.test(s));
      if (bad !== undefined)
        ctx.addIssue({ code: 'custom', path: ['spt'], message: 'an SPT starts with SPT_' });
      if (spts.length > WXPUSHER_LIMITS.spts)
        ctx.addIssue({
          code: 'custom',
          path: ['spt'],
          message: `simple push reaches at most ${WXPUSHER_LIMITS.spts} SPTs at once`,
        });
      if (cfg.appToken || cfg.uids?.length || cfg.topicIds?.length)
        ctx.addIssue({
          code: 'custom',
          path: ['mode'],
          message: 'simple push takes no appToken, uids or topicIds',
        });
    }),
  fields: {
    mode: {
      formDefault: 'app',
      options: [
        { value: 'app', label: 'channelConfig.wxpusherModeApp' },
        { value: 'spt', label: 'channelConfig.wxpusherModeSpt' },
      ],
      help: 'channelHelp.wxpusherMode',
    },
    appToken: {
      secret: true,
      placeholder: 'AT_…',
      help: 'channelHelp.wxpusherAppToken',
      dependsOn: { key: 'mode', noneOf: ['spt'] },
    },
    uids: {
      placeholder: 'UID_…',
      help: 'channelHelp.wxpusherUids',
      dependsOn: { key: 'mode', noneOf: ['spt'] },
    },
    topicIds: {
      placeholder: '12345',
      help: 'channelHelp.wxpusherTopicIds',
      dependsOn: { key: 'mode', noneOf: ['spt'] },
    },
    spt: {
      secret: true,
      placeholder: 'SPT_…',
      // Shown in both modes: a value typed in app mode is refused with a msg saying why.
      help: 'channelHelp.wxpusherSpt',
    },
    contentType: {
      options: [
        { value: 1, label: 'contentType.text' },
        { value: 2, label: 'contentType.html' },
        { value: 3, label: 'contentType.markdown' },
      ],
      help: 'channelHelp.wxpusherContentType',
    },
    url: { placeholder: 'https://example.com/status', help: 'channelHelp.wxpusherUrl' },
    baseUrl: {
      help: 'channelHelp.wxpusherBaseUrl',
      advanced: true,
      destination: true,
    },
    ...httpOptionsUi,
  },
  notes: [{ id: 'wxpusher-pacing', text: 'channelHelp.wxpusherPacing', tone: 'hint' }],
});
