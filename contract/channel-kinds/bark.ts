import { z } from 'zod';

import { declareChannelConfig } from './declare';
import {
  emptyToUndefined,
  httpOptionsSchema,
  httpOptionsUi,
  optionalText,
  serverUrlField,
} from './fields';

export const BARK_SERVER = 'https://api.day.app';
export const BARK_LEVELS = ['active', 'timeSensitive', 'passive', 'critical'] as const;

/** Bark (iOS): a device key on the public or a self-hosted bark-server. */
export const barkConfig = declareChannelConfig({
  schema: z
    .object({
      serverUrl: serverUrlField(BARK_SERVER),
      /** The key in the app's URL (https://api.day.app/<deviceKey>/…); anyone holding it can push. */
      deviceKey: z
        .string()
        .trim()
        .regex(
          /^[A-Za-z0-9_-]{1,128}$/,
          'deviceKey is the key alone, not the whole URL from the Bark app',
        ),
      /** Groups notifications in the app's history. */
      group: optionalText(100),
      /** A sound name from the Bark app (e.g. minuet); the server adds .caf. */
      sound: optionalText(100),
      /** Interruption level; `timeSensitive` breaks through Focus, `critical` through silent mode. */
      level: z.preprocess(emptyToUndefined, z.enum(BARK_LEVELS).optional()),
      /** An icon URL shown with the notification (iOS 15+). */
      icon: optionalText(2000),
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    serverUrl: { help: 'channelHelp.serverUrlDefault', destination: true },
    deviceKey: { secret: true, help: 'channelHelp.barkDeviceKey' },
    group: {},
    sound: { placeholder: 'minuet' },
    level: {},
    icon: { placeholder: 'https://example.com/icon.png' },
    ...httpOptionsUi,
  },
});
