import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { httpOptionsSchema, httpOptionsUi, optionalText, webhookUrlField } from './fields';

export const DISCORD_SNOWFLAKE = /^\d{17,20}$/;

/** Discord webhook: the URL is the credential; name, avatar and thread are optional. */
export const discordConfig = declareChannelConfig({
  schema: z
    .object({
      /** https://discord.com/api/webhooks/<id>/<token> : the URL is the credential. */
      webhookUrl: webhookUrlField('Discord'),
      /** Overrides the webhook's default name for these messages. */
      username: optionalText(80),
      /** Overrides the webhook's default avatar. */
      avatarUrl: optionalText(2000).pipe(
        z
          .string()
          .regex(/^https?:\/\/\S+$/, 'avatarUrl must be an https:// URL')
          .optional(),
      ),
      /** Post into this thread of a forum or text channel. */
      threadId: optionalText(20).pipe(
        z.string().regex(DISCORD_SNOWFLAKE, 'threadId must be a numeric id').optional(),
      ),
      /**
       * Ping @here on priority 5. Off unless the instance's owner turns it on: whoever can send
       * could otherwise ping the whole channel.
       */
      mentionAtUrgent: z.boolean().optional(),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    webhookUrl: {
      secret: true,
      destination: true,
      placeholder: 'https://discord.com/api/webhooks/…/…',
      help: 'channelHelp.urlIsSecret',
    },
    username: { label: 'channelConfig.displayName' },
    avatarUrl: { placeholder: 'https://example.com/avatar.png' },
    threadId: {},
    mentionAtUrgent: { help: 'channelHelp.mentionAtUrgent' },
    ...httpOptionsUi,
  },
});
