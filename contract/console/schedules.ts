import { z } from 'zod';

import { CONSOLE_BASE, idParams, named, nothing, pageOf, timestampSchema } from '../common';
import { LIMITS } from '../limits';
import { placeholderWarningSchema } from '../placeholder-warnings';
import { route } from '../route';
import { nameFilterQuery } from './tasks';

/*
 * Scheduled messages (docs/console-api.md, "Scheduled messages"). The rules across fields
 * (one of taskId and templateId, one of cron and runAt, a real time zone) are the service's.
 */

const body = z
  .string({ error: 'must be a string or null' })
  .max(LIMITS.contentChars, `must be at most ${LIMITS.contentChars} characters`)
  .nullable();

const requiredString = z.string({
  error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string'),
});

const optionalId = z
  .number({ error: 'must be a positive integer or null' })
  .int('must be a positive integer')
  .positive('must be a positive integer')
  .nullable();

const list = (itemMax: number, max: number) =>
  z
    .array(
      z
        .string({ error: 'must be strings' })
        .trim()
        .min(1, 'must not be empty')
        .max(itemMax, `entries must be at most ${itemMax} characters`),
      { error: 'must be an array of strings' },
    )
    .max(max, `at most ${max} entries`);

/** ISO 8601 with a date and a time; a time without an offset is refused (which zone?). */
const instant = z
  .string({ error: 'must be an ISO 8601 date and time, e.g. 2026-12-24T18:00:00+01:00' })
  .trim()
  .refine(
    (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(s),
    'must be an ISO 8601 date and time with its offset, e.g. 2026-12-24T18:00:00+01:00 or …Z',
  )
  .refine((s) => !Number.isNaN(Date.parse(s)), 'is not a real date and time')
  .transform((s) => Date.parse(s));

export const CATCH_UP = ['once', 'skip'] as const;
export type CatchUp = (typeof CATCH_UP)[number];

/** Every field an administrator sets on a schedule; create and update take any of them. */
export const scheduleFieldsSchema = z
  .object({
    name: requiredString.trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
    /** The task it sends through (V1), or null. */
    taskId: optionalId,
    /** The template it sends through (V2), or null. */
    templateId: optionalId,
    /** A repeating schedule's expression, or null. */
    cron: z
      .string({ error: 'must be a string or null' })
      .trim()
      .max(255, 'must be at most 255 characters')
      .nullable(),
    /** A one-time run's time, with its offset, or null. */
    runAt: instant.nullable(),
    /** An IANA name; default the machine's zone. */
    timezone: z.string({ error: 'must be an IANA time zone name' }).trim().max(64),
    title: requiredString
      .trim()
      .min(1, 'is required')
      .max(LIMITS.titleChars, `must be at most ${LIMITS.titleChars} characters`),
    text: body,
    html: body,
    markdown: body,
    url: z
      .string({ error: 'must be a string or null' })
      .trim()
      .max(LIMITS.urlChars, `must be at most ${LIMITS.urlChars} characters`)
      .nullable(),
    atMobiles: list(32, LIMITS.mentions),
    atUserIds: list(128, LIMITS.mentions),
    atAll: z.boolean({ error: 'must be true or false' }),
    recipients: list(320, LIMITS.recipients),
    /** A template schedule's values (numbers and booleans are kept as text). */
    placeholders: z.record(
      z.string(),
      z.union([z.string().max(LIMITS.contentChars), z.number(), z.boolean()], {
        error: 'values must be strings, numbers or booleans',
      }),
      { error: 'must be an object of values' },
    ),
    enabled: z.boolean({ error: 'must be true or false' }),
    catchUp: z.enum(CATCH_UP, { error: 'must be "once" or "skip"' }),
  })
  .strict();
/** What a client sends for a schedule (before parsing: `runAt` is ISO text). */
export type ScheduleFields = z.input<typeof scheduleFieldsSchema>;

export const scheduleCreateBody = scheduleFieldsSchema.partial().extend({
  name: scheduleFieldsSchema.shape.name,
  title: scheduleFieldsSchema.shape.title,
});
export type ScheduleCreate = z.input<typeof scheduleCreateBody>;
export const schedulePatchBody = scheduleFieldsSchema.partial();
/** A parsed update, as the service applies it (`runAt` in epoch milliseconds). */
export type SchedulePatch = z.infer<typeof schedulePatchBody>;
export type ScheduleUpdate = z.input<typeof schedulePatchBody>;

export const cronPreviewQuery = z.object({
  cron: z.string({ error: 'is required' }).max(255, 'must be at most 255 characters'),
  timezone: z.string().max(64).optional(),
  count: z.coerce
    .number<string | number>({ error: 'must be a number' })
    .int()
    .min(1, 'must be 1 to 20')
    .max(20, 'must be 1 to 20')
    .default(5),
});

/** The next run times of an expression, for the editor's live preview. */
export const cronPreviewSchema = named(
  'CronPreview',
  z.strictObject({
    /** The expression as Herald reads it. */
    cron: z.string(),
    /** The time zone's canonical name. */
    timezone: z.string(),
    runs: z.array(timestampSchema),
  }),
);
export type CronPreview = z.infer<typeof cronPreviewSchema>;

const id = z.number().int().positive();

export const scheduleSchema = named(
  'Schedule',
  z.strictObject({
    id,
    name: z.string(),
    taskId: id.nullable(),
    templateId: id.nullable(),
    /** The task's or template's name; null once it was deleted. */
    sourceName: z.string().nullable(),
    cron: z.string().nullable(),
    runAt: timestampSchema.nullable(),
    timezone: z.string(),
    title: z.string(),
    text: z.string().nullable(),
    html: z.string().nullable(),
    markdown: z.string().nullable(),
    url: z.string().nullable(),
    atMobiles: z.array(z.string()),
    atUserIds: z.array(z.string()),
    atAll: z.boolean(),
    recipients: z.array(z.string()),
    placeholders: z.record(z.string(), z.string()),
    enabled: z.boolean(),
    catchUp: z.enum(CATCH_UP),
    /** Null while disabled or after a one-time run. */
    nextRunAt: timestampSchema.nullable(),
    lastRunAt: timestampSchema.nullable(),
    /** The send of the latest run (GET /logs/{id}). */
    lastSendId: id.nullable(),
    /** Why the latest run sent nothing (refused, or skipped). */
    lastError: z.string().nullable(),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
);
export type Schedule = z.infer<typeof scheduleSchema>;

/**
 * A schedule as creating or changing it answers: with `warnings` when it sends through a
 * template and its placeholder values would leave a marker unfilled or go unused (only when
 * there are any). It is saved all the same.
 */
export const savedScheduleSchema = named(
  'SavedSchedule',
  scheduleSchema.extend({ warnings: z.array(placeholderWarningSchema).optional() }),
);
export type SavedSchedule = z.infer<typeof savedScheduleSchema>;

export const scheduleRoutes = {
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/schedules`,
    summary: 'List scheduled messages, newest first (?name= filters)',
    query: nameFilterQuery,
    response: pageOf(scheduleSchema),
  }),
  create: route({
    method: 'post',
    path: `${CONSOLE_BASE}/schedules`,
    summary: 'Create a scheduled message',
    body: scheduleCreateBody,
    response: savedScheduleSchema,
  }),
  preview: route({
    method: 'get',
    path: `${CONSOLE_BASE}/schedules/preview`,
    summary:
      'The next run times of a cron expression (?cron=&timezone=&count=, 1 to 20, default 5)',
    query: cronPreviewQuery,
    response: cronPreviewSchema,
  }),
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/schedules/{id}`,
    summary: 'Read a scheduled message',
    params: idParams,
    response: scheduleSchema,
  }),
  update: route({
    method: 'put',
    path: `${CONSOLE_BASE}/schedules/{id}`,
    summary: 'Update a scheduled message (any of its fields)',
    params: idParams,
    body: schedulePatchBody,
    response: savedScheduleSchema,
  }),
  patch: route({
    method: 'patch',
    path: `${CONSOLE_BASE}/schedules/{id}`,
    summary: 'Update a scheduled message (the same as PUT)',
    params: idParams,
    body: schedulePatchBody,
    response: savedScheduleSchema,
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/schedules/{id}`,
    summary: 'Delete a scheduled message; its sends stay in the log',
    params: idParams,
    response: nothing,
  }),
  run: route({
    method: 'post',
    path: `${CONSOLE_BASE}/schedules/{id}/run`,
    summary: 'Send a scheduled message now, whatever its timing; the next due time stays',
    params: idParams,
    response: z.strictObject({ sendId: id, schedule: scheduleSchema }),
  }),
};
