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
  /**
   * The signed-in person changed their read state, in this or another of their windows: one
   * message (`id`), or everything (`id` null, read-all). Only that person's streams get it.
   */
  read: z.strictObject({
    id: z.number().int().positive().nullable(),
    read: z.boolean(),
    unreadCount: z.number().int().min(0),
  }),
  /**
   * A hosted message was deleted (by anyone): drop it from what is shown and read the unread
   * count again (it may have been unread). Every signed-in person's streams get it.
   */
  messageDeleted: z.strictObject({ id: z.number().int().positive() }),
  /**
   * Retention deleted `count` hosted messages created before `before`: as messageDeleted, once
   * per prune run rather than once per message. Every signed-in person's streams get it.
   */
  messagesPruned: z.strictObject({
    count: z.number().int().positive(),
    before: timestampSchema,
  }),
  /** A delivery's status changed. */
  delivery: z.strictObject({
    id: z.number().int().positive(),
    sendId: z.number().int().positive(),
    status: deliveryStatusSchema,
  }),
  /** A send's status changed. */
  send: z.strictObject({ id: z.number().int().positive(), status: sendStatusSchema }),
  /**
   * A schedule was created, changed or deleted, or it ran (its next run, last run, last send or
   * last error changed): read it, or the list, again.
   */
  schedule: z.strictObject({ id: z.number().int().positive() }),
};
export type ConsoleEventName = keyof typeof consoleEventSchemas;
export type MessageEvent = z.infer<typeof consoleEventSchemas.message>;
export type ReadEvent = z.infer<typeof consoleEventSchemas.read>;
export type MessageDeletedEvent = z.infer<typeof consoleEventSchemas.messageDeleted>;
export type MessagesPrunedEvent = z.infer<typeof consoleEventSchemas.messagesPruned>;
export type DeliveryEvent = z.infer<typeof consoleEventSchemas.delivery>;
export type SendEvent = z.infer<typeof consoleEventSchemas.send>;
export type ScheduleEvent = z.infer<typeof consoleEventSchemas.schedule>;

export const eventRoutes = {
  stream: route({
    method: 'get',
    path: `${CONSOLE_BASE}/events`,
    summary:
      'Server-Sent Events: message, read, delivery, send, schedule (at most 8 streams per session; the next answers 429)',
    answers: 'event-stream',
  }),
};
