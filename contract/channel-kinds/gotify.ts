import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { httpOptionsSchema, httpOptionsUi, requiredServerUrlField } from './fields';

/** Gotify: a self-hosted server and an application token. */
export const gotifyConfig = declareChannelConfig({
  schema: z
    .object({
      /** Gotify has no public server: the address of yours, e.g. https://push.example.com. */
      serverUrl: requiredServerUrlField(),
      /** An application token (Apps → token), not a client token. */
      appToken: z.string().trim().min(1, 'appToken is required').max(200),
      /** 0–10; without it the application's default priority applies. */
      priority: z.number().int().min(0).max(10).optional(),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    serverUrl: { placeholder: 'https://push.example.com', destination: true },
    appToken: { secret: true, help: 'channelHelp.gotifyAppToken' },
    priority: {},
    ...httpOptionsUi,
  },
});
