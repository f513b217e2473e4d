import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { httpOptionsSchema, httpOptionsUi, serverUrlField } from './fields';

export const PUSHME_DEFAULT_SERVER_URL = 'https://push.i-i.me';

/** PushMe: the push key from the app, on the official or a self-hosted server. */
export const pushMeConfig = declareChannelConfig({
  schema: z
    .object({
      /** The push_key shown in the PushMe app. */
      pushKey: z
        .string()
        .trim()
        .min(1, 'pushKey is required')
        .max(200)
        .regex(/^[^\s,]+$/, 'pushKey is one key, without spaces or commas'),
      /** The official server, or a self-hosted pushme-server (usually port 3010). */
      serverUrl: serverUrlField(PUSHME_DEFAULT_SERVER_URL),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    pushKey: { secret: true, help: 'channelHelp.pushMeKey' },
    serverUrl: { help: 'channelHelp.serverUrlDefault', destination: true },
    ...httpOptionsUi,
  },
});
