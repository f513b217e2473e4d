import { z } from 'zod';

import { CONTENT_TYPES } from '../../channels/channel-adapter';

const commaList = z.string().trim().max(5000);

export const instanceCreateSchema = z
  .object({
    channelId: z.number().int().positive(),
    contentType: z.enum(CONTENT_TYPES),
    enabled: z.boolean().default(true),
    recipient: z.string().trim().max(5000).default(''),
    dynamicRecipients: z.boolean().default(false),
    atMobiles: commaList.default(''),
    atAll: z.boolean().default(false),
  })
  .strict();
export type InstanceCreate = z.infer<typeof instanceCreateSchema>;

export const instancePatchSchema = z
  .object({
    contentType: z.enum(CONTENT_TYPES),
    enabled: z.boolean(),
    recipient: z.string().trim().max(5000),
    dynamicRecipients: z.boolean(),
    atMobiles: commaList,
    atAll: z.boolean(),
  })
  .partial()
  .strict();
export type InstancePatch = z.infer<typeof instancePatchSchema>;
