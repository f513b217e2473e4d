import { z } from 'zod';

import { LIMITS } from '../../config/settings-schema';

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

export const scheduleFieldsSchema = z
  .object({
    name: requiredString.trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
    taskId: optionalId,
    templateId: optionalId,
    cron: z
      .string({ error: 'must be a string or null' })
      .trim()
      .max(255, 'must be at most 255 characters')
      .nullable(),
    runAt: instant.nullable(),
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
    placeholders: z.record(
      z.string(),
      z.union([z.string().max(LIMITS.contentChars), z.number(), z.boolean()], {
        error: 'values must be strings, numbers or booleans',
      }),
      { error: 'must be an object of values' },
    ),
    enabled: z.boolean({ error: 'must be true or false' }),
    catchUp: z.enum(['once', 'skip'], { error: 'must be "once" or "skip"' }),
  })
  .strict();

export const scheduleCreateSchema = scheduleFieldsSchema.partial().extend({
  name: scheduleFieldsSchema.shape.name,
  title: scheduleFieldsSchema.shape.title,
});
export const schedulePatchSchema = scheduleFieldsSchema.partial();
export type SchedulePatch = z.infer<typeof schedulePatchSchema>;

export const previewQuerySchema = z.object({
  cron: z.string({ error: 'is required' }).max(255, 'must be at most 255 characters'),
  timezone: z.string().max(64).optional(),
  count: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .min(1, 'must be 1 to 20')
    .max(20, 'must be 1 to 20')
    .default(5),
});
