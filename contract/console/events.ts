import { z } from 'zod';

import { CONSOLE_BASE, contentTypeSchema, timestampSchema } from '../common';
import { route } from '../route';
import { deliveryStatusSchema, sendStatusSchema } from './logs';
import { messagePrioritySchema } from './messages';

/**
 * The `data` of each event on the console's stream (Server-Sent Events, not the envelope), by
 * event name.
 */
export const consoleEventSchemas = {
  /** A hosted message arrived. */
  message: z.strictObject({
    id: z.number().int().positive(),
    title: z.string(),
    format: contentTypeSchema,
    /** 1 … 5 as the sender gave it; null when none was given. */
    priority: messagePrioritySchema.nullable(),
    createdAt: timestampSchema,
  }),
  /** A delivery's status changed. */
  delivery: z.strictObject({
    id: z.number().int().positive(),
    sendId: z.number().int().positive(),
    status: deliveryStatusSchema,
  }),
  /** A send's status changed. */
  send: z.strictObject({ id: z.number().int().positive(), status: sendStatusSchema }),
};
export type ConsoleEventName = keyof typeof consoleEventSchemas;
export type MessageEvent = z.infer<typeof consoleEventSchemas.message>;
export type DeliveryEvent = z.infer<typeof consoleEventSchemas.delivery>;
export type SendEvent = z.infer<typeof consoleEventSchemas.send>;

export const eventRoutes = {
  stream: route({
    method: 'get',
    path: `${CONSOLE_BASE}/events`,
    summary:
      'Server-Sent Events: message, delivery, send (at most 8 streams per session; the next answers 429)',
    answers: 'event-stream',
  }),
};
