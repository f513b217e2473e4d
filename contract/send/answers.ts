import { z } from 'zod';

import { named } from '../common';
import { deliveryStatusSchema } from '../console/logs';

/*
 * What the two send APIs answer as the envelope's `data` on success (docs/send-api.md); a
 * refusal carries `data: null`.
 */

/**
 * The share link of the message the first hosted instance with its public link on stores,
 * opened without login; only when the task or template has such an enabled instance (new
 * hosted instances have it off: docs/send-api.md "Share links").
 */
const hostMessageUrl = z.string().optional();

/**
 * Only on sends that carry a `dedupKey`: `true` when an open window of the key kept this send
 * from delivery (it is logged as suppressed, counted on `firstSendId`, the send that opened
 * the window); `false` when this send was delivered (docs/send-api.md "Dedup").
 */
const dedupFields = {
  deduplicated: z.boolean().optional(),
  firstSendId: z.number().int().positive().optional(),
};

/**
 * Only on a send a digest collected (issue 46 §2): it is stored `collected` and goes out with
 * the digest's one message per channel when the window closes, at `until` (ISO time; a digest
 * whose window ended while it was being closed goes out as soon as it is).
 */
const digestField = {
  digest: z.strictObject({ until: z.string() }).optional(),
};

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
 * `results` is `mode: "async"`; `suppressed`: a dedup window kept it from delivery; `collected`: a digest
 * collected it (`digest.until`). None of them should be sent again.
 */
export const v1AnswerSchema = named(
  'V1Answer',
  z.strictObject({
    status: z.enum(['sent', 'partial', 'retrying', 'queued', 'suppressed', 'collected']),
    sendId: z.number().int().positive(),
    results: z.array(v1ResultSchema).optional(),
    hostMessageUrl,
    ...dedupFields,
    ...digestField,
  }),
);
export type V1Answer = z.infer<typeof v1AnswerSchema>;

/**
 * V2: queued; `count` is the number of enabled instances the message was queued to (0 when a
 * dedup window suppressed it, or a digest collected it: `digest.until`).
 */
export const v2AnswerSchema = named(
  'V2Answer',
  z.strictObject({
    /** The template token the request sent. */
    token: z.string(),
    count: z.number().int().min(0),
    hostMessageUrl,
    ...dedupFields,
    ...digestField,
    /**
     * Only when there are any: one sentence per placeholder key the send left unfilled (its
     * marker delivered as written) or gave a value the template does not declare. The send was
     * accepted all the same (docs/send-api.md "Placeholder warnings").
     */
    warnings: z.array(z.string()).optional(),
  }),
);
export type V2Answer = z.infer<typeof v2AnswerSchema>;
