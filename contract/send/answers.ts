import { z } from 'zod';

import { named } from '../common';
import { deliveryStatusSchema } from '../console/logs';

/*
 * What the two send APIs answer as the envelope's `data` on success (docs/send-api.md); a
 * refusal carries `data: null`.
 */

/**
 * The share link of the message the (first) hosted instance stores, opened without login;
 * only when the task or template has an enabled hosted instance.
 */
const hostMessageUrl = z.string().optional();

/** One delivery of a V1 answer that is not simply `sent`. */
export const v1ResultSchema = named(
  'V1Result',
  z.strictObject({
    instanceId: z.number().int().positive().nullable(),
    channelId: z.number().int().positive(),
    channelType: z.string(),
    recipient: z.string().nullable(),
    /** `retrying`: a transient failure that will be tried again; `failed`: for good. */
    status: deliveryStatusSchema,
    error: z.string().nullable(),
  }),
);
export type V1Result = z.infer<typeof v1ResultSchema>;

/**
 * V1: how far delivery got within the wait. `sent`: every delivery; `partial`, `retrying` and
 * `queued` (also `mode: "sync"` answers whose wait ran out) carry `results`; `queued` without
 * `results` is `mode: "async"`. None of them should be sent again.
 */
export const v1AnswerSchema = named(
  'V1Answer',
  z.strictObject({
    status: z.enum(['sent', 'partial', 'retrying', 'queued']),
    sendId: z.number().int().positive(),
    results: z.array(v1ResultSchema).optional(),
    hostMessageUrl,
  }),
);
export type V1Answer = z.infer<typeof v1AnswerSchema>;

/** V2: queued; `count` is the number of enabled instances the message was queued to. */
export const v2AnswerSchema = named(
  'V2Answer',
  z.strictObject({
    /** The template token the request sent. */
    token: z.string(),
    count: z.number().int().min(0),
    hostMessageUrl,
  }),
);
export type V2Answer = z.infer<typeof v2AnswerSchema>;
