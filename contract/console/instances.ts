import { z } from 'zod';

import {
  CONSOLE_BASE,
  contentTypeSchema,
  idParams,
  named,
  nothing,
  timestampSchema,
} from '../common';
import { route } from '../route';

const commaList = z.string().trim().max(5000);

/**
 * Aliyun SMS only: the instance's own SMS template code, sent over its channel's (e.g.
 * SMS_123456789); null or '' uses the channel's. Other kinds refuse one.
 */
const templateCode = z
  .string()
  .trim()
  .max(64)
  .nullable()
  .transform((v) => (v ? v : null));

/**
 * Hosted-message instances only: every message gets its public share link (no sign-in) when its
 * send is accepted, and the send answer carries it as `hostMessageUrl`. Off: a message has no
 * link until someone shares it in the reader. Other kinds refuse `true`.
 */
const publicLink = z.boolean();

/** A new instance of a task or template: which channel, in which format, to whom. */
export const instanceCreateBody = z
  .object({
    channelId: z.number().int().positive(),
    contentType: contentTypeSchema,
    enabled: z.boolean().default(true),
    recipient: z.string().trim().max(5000).default(''),
    dynamicRecipients: z.boolean().default(false),
    atMobiles: commaList.default(''),
    atAll: z.boolean().default(false),
    templateCode: templateCode.default(null),
    publicLink: publicLink.default(false),
  })
  .strict();
/** What the server works with after defaults. */
export type InstanceCreate = z.infer<typeof instanceCreateBody>;
/** What a client sends. */
export type InstanceInput = z.input<typeof instanceCreateBody>;

/** Any of an instance's fields but its channel. */
export const instancePatchBody = z
  .object({
    contentType: contentTypeSchema,
    enabled: z.boolean(),
    recipient: z.string().trim().max(5000),
    dynamicRecipients: z.boolean(),
    atMobiles: commaList,
    atAll: z.boolean(),
    templateCode,
    publicLink,
  })
  .partial()
  .strict();
export type InstancePatch = z.infer<typeof instancePatchBody>;

export const instanceSchema = named(
  'Instance',
  z.strictObject({
    id: z.number().int().positive(),
    /** The owner: a task (V1) or a template (V2); the other is null. */
    taskId: z.number().int().positive().nullable(),
    templateId: z.number().int().positive().nullable(),
    channelId: z.number().int().positive(),
    /** Null when the channel is gone. */
    channel: z
      .strictObject({ id: z.number().int().positive(), name: z.string(), type: z.string() })
      .nullable(),
    contentType: contentTypeSchema,
    enabled: z.boolean(),
    recipient: z.string(),
    dynamicRecipients: z.boolean(),
    /** Comma-separated phone numbers to @mention. */
    atMobiles: z.string(),
    atAll: z.boolean(),
    /** Aliyun SMS: the instance's own template code; null: the channel's. */
    templateCode: z.string().nullable(),
    /** Hosted messages: a public link is made for each message at accept; false on other kinds. */
    publicLink: z.boolean(),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
);
export type Instance = z.infer<typeof instanceSchema>;

export const instanceRoutes = {
  update: route({
    method: 'patch',
    path: `${CONSOLE_BASE}/instances/{id}`,
    summary: 'Update an instance',
    params: idParams,
    body: instancePatchBody,
    response: instanceSchema,
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/instances/{id}`,
    summary: 'Delete an instance',
    params: idParams,
    response: nothing,
  }),
};
