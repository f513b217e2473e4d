import { z } from 'zod';

import {
  CONSOLE_BASE,
  contentTypeSchema,
  idParams,
  named,
  pageOf,
  pagingQuery,
  queryId,
  timestampSchema,
} from '../common';
import { placeholderWarningSchema } from '../placeholder-warnings';
import { route } from '../route';

/**
 * `suppressed`: accepted and recorded but not delivered, because an earlier send with the same
 * dedup key on the same task or template opened a window still open (docs/send-api.md).
 * `collected`: accepted and recorded, delivered inside a digest (issue 46 §2).
 */
export const SEND_STATUSES = [
  'pending',
  'sent',
  'partial',
  'failed',
  'suppressed',
  'collected',
] as const;
export const sendStatusSchema = named('SendStatus', z.enum(SEND_STATUSES));
export type SendStatus = z.infer<typeof sendStatusSchema>;

/**
 * A send as the log reads it: its stored status, except that a `pending` send with a delivery
 * that failed and waits for its next attempt reads `retrying` (issue 41 §3).
 */
export const SEND_LOG_STATUSES = [...SEND_STATUSES, 'retrying'] as const;
export const sendLogStatusSchema = named('SendLogStatus', z.enum(SEND_LOG_STATUSES));
export type SendLogStatus = z.infer<typeof sendLogStatusSchema>;

/** `suppressed`: not sent, on purpose: a quiet-hours rule dropped it, the reason its lastError. */
export const DELIVERY_STATUSES = [
  'queued',
  'sending',
  'retrying',
  'sent',
  'failed',
  'suppressed',
] as const;
export const deliveryStatusSchema = named('DeliveryStatus', z.enum(DELIVERY_STATUSES));
export type DeliveryStatus = z.infer<typeof deliveryStatusSchema>;

/** An ISO date or time in a query; a bare date as `to` means the whole of that day. */
const queryTime = (endOfDay: boolean) =>
  z
    .string()
    .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO date or time')
    .transform((s) =>
      endOfDay && /^\d{4}-\d{2}-\d{2}$/.test(s) ? new Date(`${s}T23:59:59.999Z`) : new Date(s),
    )
    .optional();

export const logQuery = pagingQuery.extend({
  /** Searches title and content (docs/console-api.md, "Search"). */
  q: z.string().max(200).optional(),
  api: z.enum(['v1', 'v2']).optional(),
  taskId: queryId,
  templateId: queryId,
  status: sendLogStatusSchema.optional(),
  from: queryTime(false),
  to: queryTime(true),
});
export type LogQuery = z.input<typeof logQuery>;

/** What opened a send: its token, its task's id, or a Message Nest credential (`legacy_`). */
export const sendCredentialSchema = z.enum(['token', 'legacy_token', 'task_id', 'legacy_task_id']);
export type SendCredential = z.infer<typeof sendCredentialSchema>;

export const sendSchema = named(
  'Send',
  z.strictObject({
    id: z.number().int().positive(),
    api: z.enum(['v1', 'v2']),
    taskId: z.number().int().positive().nullable(),
    templateId: z.number().int().positive().nullable(),
    /** The task's or template's name when the send arrived. */
    sourceName: z.string(),
    /** The schedule whose run made this send; null for API calls. */
    scheduleId: z.number().int().positive().nullable(),
    title: z.string(),
    status: sendLogStatusSchema,
    /**
     * The latest error of a delivery that failed, for now (`retrying`) or for good; null when
     * none has.
     */
    lastError: z.string().nullable(),
    /** What the placeholders left unfilled or dropped, as the send API answered; [] for none. */
    warnings: z.array(placeholderWarningSchema),
    deliveryCount: z.number().int().min(0),
    /**
     * What opened the send; null on sends from before it was recorded and imported logs. The
     * `legacy_` ones are Message Nest's credentials (an imported task's or template's old token,
     * its old id as task_id), named so since they were published.
     */
    credential: sendCredentialSchema.nullable(),
    sentCount: z.number().int().min(0),
    failedCount: z.number().int().min(0),
    /** 1 (min) … 5 (max) as the sender gave it; null: none given, each channel's default. */
    priority: z.number().int().min(1).max(5).nullable(),
    /** The sender's dedupKey, if any. */
    dedupKey: z.string().nullable(),
    /** A suppressed send: the send whose dedup window it fell in. */
    suppressedBy: z.number().int().positive().nullable(),
    /** How many later sends were suppressed within this send's dedup window. */
    suppressedCount: z.number().int().min(0),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
);
export type Send = z.infer<typeof sendSchema>;

export const deliverySchema = named(
  'Delivery',
  z.strictObject({
    id: z.number().int().positive(),
    sendId: z.number().int().positive(),
    instanceId: z.number().int().positive().nullable(),
    channelId: z.number().int().positive(),
    channelType: z.string(),
    contentType: contentTypeSchema,
    recipient: z.string().nullable(),
    status: deliveryStatusSchema,
    /** 1 … 5, or null: the channel's own default. */
    priority: z.number().int().min(1).max(5).nullable(),
    /** Sends with the same dedup key suppressed between the last delivered one and this one. */
    repeats: z.number().int().min(0),
    attempts: z.number().int().min(0),
    /** When a queued or retrying delivery is tried next; null otherwise. */
    nextAttemptAt: timestampSchema.nullable(),
    lastError: z.string().nullable(),
    reply: z.string().nullable(),
    sentAt: timestampSchema.nullable(),
    createdAt: timestampSchema,
  }),
);
export type Delivery = z.infer<typeof deliverySchema>;

export const attemptSchema = named(
  'Attempt',
  z.strictObject({
    attempt: z.number().int().min(1),
    outcome: z.enum(['sent', 'transient', 'permanent', 'suppressed']),
    error: z.string().nullable(),
    reply: z.string().nullable(),
    durationMs: z.number().min(0),
    startedAt: timestampSchema,
  }),
);
export type Attempt = z.infer<typeof attemptSchema>;

/** A delivery as a send's detail shows it: with its channel's name and its attempts. */
export const loggedDeliverySchema = named(
  'LoggedDelivery',
  deliverySchema.extend({ channelName: z.string(), attemptLog: z.array(attemptSchema) }),
);
export type LoggedDelivery = z.infer<typeof loggedDeliverySchema>;

/** A file sent with the send (issue 43 §2), at its URL while it is kept. */
export const loggedAttachmentSchema = named(
  'LoggedAttachment',
  z.strictObject({
    /** The sender's name for the file, made safe. */
    name: z.string(),
    /** The type sniffed from its bytes (application/octet-stream when unknown). */
    type: z.string(),
    size: z.number().int().min(0),
    url: z.string(),
  }),
);
export type LoggedAttachment = z.infer<typeof loggedAttachmentSchema>;

export const sendDetailSchema = named(
  'SendDetail',
  sendSchema.extend({
    /** Null for API calls and for a schedule deleted since. */
    scheduleName: z.string().nullable(),
    text: z.string().nullable(),
    html: z.string().nullable(),
    markdown: z.string().nullable(),
    url: z.string().nullable(),
    /** The request as received (tokens shortened). */
    request: z.unknown(),
    deliveries: z.array(loggedDeliverySchema),
    /** The files sent with it that are still kept (expired ones are gone); [] for none. */
    attachments: z.array(loggedAttachmentSchema),
    /**
     * A `collected` send: the digest it waits in, until when, and the digest's own send once
     * the window closed (null while it is open). Null for any other send.
     */
    collectedInto: z
      .strictObject({
        digestId: z.number().int().positive(),
        until: timestampSchema,
        digestSendId: z.number().int().positive().nullable(),
      })
      .nullable(),
    /** A digest's own send: the sends it carried, oldest first. Null for any other send. */
    digestOf: z
      .array(
        z.strictObject({
          id: z.number().int().positive(),
          title: z.string(),
          createdAt: timestampSchema,
        }),
      )
      .nullable(),
  }),
);
export type SendDetail = z.infer<typeof sendDetailSchema>;

/** A page of sends; above 10,000 matches of a search or filter the total stops there. */
export const sendPageSchema = pageOf(sendSchema).extend({
  totalIsCapped: z.boolean(),
  /**
   * Whether any task or template accepts its Message Nest credential (an imported one turned
   * on): sends may then show one, on this page or another, so the console keeps the column.
   */
  messageNestCredentials: z.boolean(),
});

export const logRoutes = {
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/logs`,
    summary: 'List sends, newest first (q, api, taskId, templateId, status, from, to)',
    query: logQuery,
    response: sendPageSchema,
  }),
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/logs/{id}`,
    summary: 'One send with its deliveries and attempts',
    params: idParams,
    response: sendDetailSchema,
  }),
  retry: route({
    method: 'post',
    path: `${CONSOLE_BASE}/deliveries/{id}/retry`,
    summary: 'Queue a failed (or waiting) delivery again now, with a fresh attempt budget',
    params: idParams,
    response: deliverySchema,
  }),
};
