import { z } from 'zod';

import { CONSOLE_BASE, idParams, named, nothing, queryId, timestampSchema } from '../common';
import { route } from '../route';

/*
 * Quiet hours (issue 46 §1, docs/console-api.md "Quiet hours"): a rule of a channel instance,
 * a channel, or a person (their own desktop notifications and Web Push). Inside its window a
 * message below its bypass priority is held until the window ends, delivered silently
 * (soften), or recorded as suppressed (drop). The zone's validity is the server's check.
 */

export const QUIET_HOURS_ACTIONS = ['hold', 'soften', 'drop'] as const;
export type QuietHoursAction = (typeof QUIET_HOURS_ACTIONS)[number];

export const QUIET_HOURS_OWNERS = ['instance', 'channel', 'user'] as const;
export type QuietHoursOwnerType = (typeof QUIET_HOURS_OWNERS)[number];

const clockTime = z
  .string({ error: 'must be a time of day, HH:MM' })
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day, HH:MM (00:00 to 23:59)');

const ownerId = z
  .number({ error: 'must be a positive integer' })
  .int('must be a positive integer')
  .positive('must be a positive integer');

/** Every field of a rule; create takes its owner and any of the rest. */
export const quietHoursFieldsSchema = z
  .object({
    /** An IANA zone name, e.g. Europe/Berlin; the window is wall-clock time there. */
    timezone: z.string({ error: 'must be an IANA time zone name' }).trim().min(1).max(64),
    /** 0 Sunday … 6 Saturday: the days a window starts on. */
    weekdays: z
      .array(z.number({ error: 'must be 0 (Sunday) to 6 (Saturday)' }).int().min(0).max(6), {
        error: 'must be an array of weekdays, 0 (Sunday) to 6 (Saturday)',
      })
      .max(7)
      .refine((days) => new Set(days).size === days.length, 'must not repeat a day'),
    /** Where the window starts; an end not after the start is the next day's (22:00–07:00). */
    start: clockTime,
    end: clockTime,
    action: z.enum(QUIET_HOURS_ACTIONS, { error: 'must be "hold", "soften" or "drop"' }),
    /** A message of this priority (1 … 5) or above goes as usual; default 5. */
    bypassPriority: z.number({ error: 'must be 1 to 5' }).int().min(1).max(5),
    enabled: z.boolean({ error: 'must be true or false' }),
  })
  .strict();

export const quietHoursOwnerSchema = z
  .object({
    ownerType: z.enum(QUIET_HOURS_OWNERS, { error: 'must be "instance", "channel" or "user"' }),
    ownerId,
  })
  .strict();

export const quietHoursCreateBody = quietHoursFieldsSchema
  .partial()
  .extend({
    ownerType: quietHoursOwnerSchema.shape.ownerType,
    ownerId,
    timezone: quietHoursFieldsSchema.shape.timezone,
    start: clockTime,
    end: clockTime,
  })
  .strict();
export type QuietHoursCreate = z.input<typeof quietHoursCreateBody>;

export const quietHoursPatchBody = quietHoursFieldsSchema.partial().strict();
export type QuietHoursPatch = z.input<typeof quietHoursPatchBody>;

export const quietHoursListQuery = z.object({
  ownerType: z.enum(QUIET_HOURS_OWNERS).optional(),
  ownerId: queryId,
});

export const quietHoursRuleSchema = named(
  'QuietHoursRule',
  z.strictObject({
    id: z.number().int().positive(),
    ownerType: z.enum(QUIET_HOURS_OWNERS),
    ownerId: z.number().int().positive(),
    timezone: z.string(),
    weekdays: z.array(z.number().int()),
    start: z.string(),
    end: z.string(),
    action: z.enum(QUIET_HOURS_ACTIONS),
    bypassPriority: z.number().int(),
    enabled: z.boolean(),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
);
export type QuietHoursRule = z.infer<typeof quietHoursRuleSchema>;

/** One of instanceId, channelId and userId; priority 1 … 5 (default 3); at: now by default. */
export const quietHoursPreviewQuery = z.object({
  instanceId: queryId,
  channelId: queryId,
  userId: queryId,
  priority: z.coerce.number<number | string>().int().min(1).max(5).optional(),
  at: z
    .string()
    .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO date and time')
    .optional(),
});

/** "Would a message sent at `at` be held, and until when?" */
export const quietHoursPreviewSchema = named(
  'QuietHoursPreview',
  z.strictObject({
    applies: z.boolean(),
    action: z.enum(QUIET_HOURS_ACTIONS).nullable(),
    /** When the window ends (a hold's release time); null when no rule applies. */
    until: timestampSchema.nullable(),
    ruleId: z.number().int().positive().nullable(),
  }),
);
export type QuietHoursPreview = z.infer<typeof quietHoursPreviewSchema>;

export const quietHoursRoutes = {
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/quiet-hours`,
    summary: 'List quiet-hours rules the caller may see (?ownerType=&ownerId= filters)',
    query: quietHoursListQuery,
    response: z.strictObject({ items: z.array(quietHoursRuleSchema) }),
  }),
  create: route({
    method: 'post',
    path: `${CONSOLE_BASE}/quiet-hours`,
    summary: 'Create a quiet-hours rule for an instance, a channel or a person',
    body: quietHoursCreateBody,
    response: quietHoursRuleSchema,
  }),
  preview: route({
    method: 'get',
    path: `${CONSOLE_BASE}/quiet-hours/preview`,
    summary:
      'Would a message sent now (or ?at=) be held, softened or dropped, and until when? (?instanceId=|channelId=|userId=&priority=)',
    query: quietHoursPreviewQuery,
    response: quietHoursPreviewSchema,
  }),
  update: route({
    method: 'put',
    path: `${CONSOLE_BASE}/quiet-hours/{id}`,
    summary: 'Change a quiet-hours rule (any of its fields but its owner)',
    params: idParams,
    body: quietHoursPatchBody,
    response: quietHoursRuleSchema,
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/quiet-hours/{id}`,
    summary: 'Delete a quiet-hours rule; deliveries it holds go at their next look',
    params: idParams,
    response: nothing,
  }),
};
