import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { httpOptionsSchema, httpOptionsUi, webhookUrlField } from './fields';

/** Slack incoming webhook: the URL is the credential. */
export const slackConfig = declareChannelConfig({
  schema: z
    .object({
      /** https://hooks.slack.com/services/T…/B…/… : the URL is the credential. */
      webhookUrl: webhookUrlField('Slack incoming'),
      /**
       * Notify the channel's active members (<!here>) on priority 5. Off unless the instance's
       * owner turns it on: whoever can send could otherwise ping the whole channel.
       */
      mentionAtUrgent: z.boolean().optional(),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    webhookUrl: {
      secret: true,
      destination: true,
      placeholder: 'https://hooks.slack.com/services/T…/B…/…',
      help: 'channelHelp.urlIsSecret',
    },
    mentionAtUrgent: { help: 'channelHelp.mentionAtUrgent' },
    ...httpOptionsUi,
  },
});
