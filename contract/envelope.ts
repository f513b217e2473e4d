import { z } from 'zod';

import { named } from './common';

/**
 * Every answer of the console and send APIs: `{code, msg, data}`, with the HTTP status equal to
 * `code` (the send APIs may answer HTTP 200 throughout; docs/send-api.md).
 */
export function envelopeOf<T extends z.ZodType>(data: T) {
  return z.strictObject({ code: z.number().int(), msg: z.string(), data });
}

/** A refusal: `msg` says what is wrong (naming the field); `data` is null or details. */
export const errorEnvelopeSchema = named('Refusal', envelopeOf(z.unknown()));

export type Envelope<T> = { code: number; msg: string; data: T };
