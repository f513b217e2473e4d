import { z } from 'zod';

import {
  CONSOLE_BASE,
  contentTypeSchema,
  idParams,
  nameSchema,
  named,
  nothing,
  pageOf,
  timestampSchema,
} from '../common';
import { route } from '../route';

/** One channel kind the server knows; the console builds its forms from these. */
export const channelTypeSchema = named(
  'ChannelType',
  z.strictObject({
    type: z.string(),
    label: z.string(),
    contentTypes: z.array(contentTypeSchema),
    supportsMentions: z.boolean(),
    supportsDynamicRecipients: z.boolean(),
    /** Whether a non-dynamic instance must name a recipient (email address, OpenID). */
    fixedRecipient: z.enum(['none', 'required']),
    /** Whether an instance may name its own template code over the channel's (Aliyun SMS). */
    instanceTemplateCode: z.boolean(),
    /** Config keys holding secrets: masked as "******" in answers. */
    secretFields: z.array(z.string()),
    /** Config keys saying where messages go; changing one means typing the secrets again. */
    destinationFields: z.array(z.string()),
  }),
);
export type ChannelType = z.infer<typeof channelTypeSchema>;

/** A channel's settings; each kind checks its own (the README's channel table). */
export const channelConfigSchema = z.record(z.string(), z.unknown(), {
  error: 'must be an object',
});
export type ChannelConfig = z.infer<typeof channelConfigSchema>;

/** A task or template with an instance on the channel. */
export const channelUseSchema = named(
  'ChannelUse',
  z.strictObject({
    kind: z.enum(['task', 'template']),
    id: z.number().int().positive(),
    name: z.string(),
  }),
);
export type ChannelUse = z.infer<typeof channelUseSchema>;

export const channelSchema = named(
  'Channel',
  z.strictObject({
    id: z.number().int().positive(),
    name: z.string(),
    description: z.string(),
    type: z.string(),
    /** Secret fields read "******" when set and "" when not. */
    config: channelConfigSchema,
    usedBy: z.array(channelUseSchema),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
);
export type Channel = z.infer<typeof channelSchema>;

const description = z.string().max(2000);

export const channelCreateBody = z
  .object({
    name: nameSchema,
    description: description.optional(),
    type: z.string({ error: 'is required' }),
    config: channelConfigSchema.optional(),
  })
  .strict();
export type ChannelCreate = z.input<typeof channelCreateBody>;

/** A channel edit: "******" or a left-out secret keeps it, "" clears it; `type` cannot change. */
export const channelUpdateBody = z
  .object({
    name: nameSchema.optional(),
    description: description.optional(),
    type: z.string().optional(),
    config: channelConfigSchema.optional(),
  })
  .strict();
export type ChannelUpdate = z.input<typeof channelUpdateBody>;

export const channelTestBody = z
  .object({
    title: z.string().max(1000).optional(),
    content: z.string().max(20_000).optional(),
    recipient: z.string().max(1000).optional(),
    /** An unsaved edit of the config to try; saved secrets fill in its masked values. */
    config: channelConfigSchema.optional(),
  })
  .strict();
export type ChannelTest = z.input<typeof channelTestBody>;

/** The platform's answer to a test message. */
export const channelTestResult = named(
  'ChannelTestResult',
  z.strictObject({
    ok: z.boolean(),
    reply: z.string().nullable(),
    error: z.string().nullable(),
  }),
);
export type ChannelTestResult = z.infer<typeof channelTestResult>;

export const channelRoutes = {
  types: route({
    method: 'get',
    path: `${CONSOLE_BASE}/channel-types`,
    summary: 'Channel kinds with their content types and rules',
    response: z.array(channelTypeSchema),
  }),
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/channels`,
    summary: 'List channels (all of them, one page), filtered by kind or text',
    query: z.object({ type: z.string().optional(), q: z.string().optional() }),
    response: pageOf(channelSchema),
  }),
  create: route({
    method: 'post',
    path: `${CONSOLE_BASE}/channels`,
    summary: 'Create a channel',
    body: channelCreateBody,
    response: channelSchema,
  }),
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/channels/{id}`,
    summary: 'Read a channel (secrets masked)',
    params: idParams,
    response: channelSchema,
  }),
  update: route({
    method: 'put',
    path: `${CONSOLE_BASE}/channels/{id}`,
    summary: 'Update a channel; a new destination needs its secrets again',
    params: idParams,
    body: channelUpdateBody,
    response: channelSchema,
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/channels/{id}`,
    summary: 'Delete a channel (refused while instances use it)',
    params: idParams,
    response: nothing,
  }),
  test: route({
    method: 'post',
    path: `${CONSOLE_BASE}/channels/{id}/test`,
    summary: 'Send a test message through a channel, or through an unsaved edit of it',
    params: idParams,
    body: channelTestBody,
    response: channelTestResult,
  }),
};
