import { z } from 'zod';

import { PRIORITY_NAMES } from '../priority';
import { declareChannelConfig } from './declare';
import {
  emptyToUndefined,
  httpOptionsSchema,
  httpOptionsUi,
  optionalText,
  serverUrlField,
} from './fields';

export const NTFY_SERVER = 'https://ntfy.sh';

/** ntfy's names of 1–5, as the console offers them. */
const NTFY_LEVELS = ['min', 'low', 'default', 'high', 'max'] as const;

/** A priority name ("high") as its number; anything else as given. */
const priorityNumber = (value: unknown): unknown =>
  typeof value === 'string' && Object.hasOwn(PRIORITY_NAMES, value)
    ? PRIORITY_NAMES[value]
    : emptyToUndefined(value);

/** A comma-separated list ("warning,skull") as its items. */
const tagList = (value: unknown): unknown => (typeof value === 'string' ? value.split(',') : value);

/** ntfy: a topic on ntfy.sh or a self-hosted server, with optional access token or user. */
export const ntfyConfig = declareChannelConfig({
  schema: z
    .object({
      serverUrl: serverUrlField(NTFY_SERVER),
      /** On ntfy.sh the topic name is the only secret: anyone who knows it can read and post. */
      topic: z
        .string()
        .trim()
        .regex(/^[-_A-Za-z0-9]{1,64}$/, 'topic may hold letters, digits, - and _ (at most 64)'),
      /** An access token (tk_…) for a protected topic. */
      token: optionalText(200),
      username: optionalText(200),
      password: optionalText(200),
      /** 1 (min) … 5 (max/urgent), or the name; ntfy's default is 3. Stored as the number. */
      priority: z.preprocess(
        priorityNumber,
        z
          .number({ error: 'priority must be 1–5 or min, low, default, high, max, urgent' })
          .int()
          .min(1)
          .max(5)
          .optional(),
      ),
      /** Tags or emoji short codes, as an array or comma-separated ("warning,skull"). */
      tags: z.preprocess(
        tagList,
        z
          .array(z.string().trim())
          .overwrite((tags) => tags.filter(Boolean))
          .optional(),
      ),
    })
    .extend(httpOptionsSchema.shape)
    .strict()
    .superRefine((cfg, ctx) => {
      if (cfg.token && (cfg.username || cfg.password))
        ctx.addIssue({
          code: 'custom',
          path: ['token'],
          message: 'use either token or username/password',
        });
      if (Boolean(cfg.username) !== Boolean(cfg.password))
        ctx.addIssue({
          code: 'custom',
          path: ['password'],
          message: 'username and password go together',
        });
    }),
  fields: {
    serverUrl: { help: 'channelHelp.serverUrlDefault', destination: true },
    topic: { secret: true, help: 'channelHelp.ntfyTopic' },
    token: { secret: true, placeholder: 'tk_…' },
    username: { destination: true },
    password: { secret: true, dependsOn: { key: 'username', set: true } },
    priority: {
      options: NTFY_LEVELS.map((name) => ({ value: PRIORITY_NAMES[name], label: name })),
    },
    tags: { placeholder: 'warning', help: 'channelHelp.ntfyTags' },
    ...httpOptionsUi,
  },
});
