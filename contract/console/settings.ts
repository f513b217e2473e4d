import { z } from 'zod';

import { CONSOLE_BASE, named } from '../common';
import { route } from '../route';

/*
 * The settings' rules as the console changes them, one home for them:
 * server/config/settings-schema.ts adds the defaults the settings row starts from.
 */

export const retryFields = {
  maxAttempts: z.number().int().min(1).max(50),
  baseDelayMs: z.number().int().min(10).max(3_600_000),
  maxDelayMs: z.number().int().min(10).max(86_400_000),
  /** 0..1: share of each delay that is randomised so retries from a burst spread out. */
  jitter: z.number().min(0).max(1),
};

export const retentionFields = {
  /** Sends older than this many days are pruned with their deliveries and attempts; 0 = keep. */
  sendsDays: z.number().int().min(0).max(36_500),
  /** Hosted messages older than this many days are pruned; 0 = keep forever. */
  messagesDays: z.number().int().min(0).max(36_500),
  /** Audit log entries older than this many days are pruned; 0 = keep forever. */
  auditDays: z.number().int().min(0).max(36_500),
};

/** Files sent with a message (issue 43 §2): what one send may carry and how long files are kept. */
export const attachmentsFields = {
  /** The most one file may weigh, in MB (1 MB = 1,048,576 bytes). */
  maxFileMb: z.number().int().min(1).max(1024),
  /** The most files one send may carry. */
  maxFiles: z.number().int().min(1).max(100),
  /** The most all stored files may weigh together, in MB. */
  maxTotalMb: z.number().int().min(1).max(1_048_576),
  /** Files are removed after this many days, or with their send if that goes first. */
  keepDays: z.number().int().min(1).max(36_500),
};

/** Whether a string is an absolute http(s) address with nothing after the path. */
function isBaseUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.search === '' &&
    url.hash === '' &&
    url.username === '' &&
    url.password === ''
  );
}

const SEND_API_HTTP_STATUSES = ['code', 'always200'] as const;
/** How the send APIs set the HTTP status: as the envelope's code, or always 200. */
export type SendApiHttpStatus = (typeof SEND_API_HTTP_STATUSES)[number];

export const settingsFields = {
  /**
   * V1 accepts a plaintext task_id; off means task_id answers 401. Off on new installs: any web
   * page or local program can guess a small integer id. Data folders from before this default
   * changed keep it on (see the migration 2026-11-23-1000-keep-task-id-on-existing-installs).
   */
  allowTaskId: z.boolean(),
  /** How long V1 waits for the first attempt of every delivery before answering. */
  v1WaitMs: z.number().int().min(0).max(120_000),
  /** Per-token send limit per minute; 0 = off. */
  rateLimitPerMinute: z.number().int().min(0).max(100_000),
  /**
   * Where people reach Herald (e.g. https://herald.example.com, behind a reverse proxy): share
   * links (`hostMessageUrl`) are built on it. Empty: Herald's own listening address.
   */
  publicBaseUrl: z
    .string({ error: 'must be a string' })
    .trim()
    .max(2048, 'must be at most 2048 characters')
    .refine((v) => v === '' || isBaseUrl(v), {
      error:
        "must be an absolute http:// or https:// address without query or fragment (e.g. https://herald.example.com), or empty for Herald's own address",
    })
    .transform((v) => v.replace(/\/+$/, '')),
  /**
   * The send APIs' HTTP status: 'code' mirrors the envelope's code; 'always200' answers HTTP 200
   * and only the envelope carries the code (Message Nest's behaviour, for clients that treat a
   * non-2xx status as an exception before reading the body).
   */
  sendApi: z
    .object({
      httpStatus: z.enum(SEND_API_HTTP_STATUSES, { error: 'must be "code" or "always200"' }),
    })
    .strict(),
  /** The reader loads remote images in hosted messages without asking (they tell the sender when a message was read). */
  showRemoteImages: z.boolean(),
  /**
   * Every account must sign in with a second factor: one without it can reach only what it
   * needs to set one up (docs/running-for-a-team.md "Requiring two-factor").
   */
  requireTwoFactor: z.boolean(),
  /**
   * Herald may fetch from private, loopback and link-local addresses on a sender's behalf (an
   * attachment by URL, a proxied image). Off: only public addresses, so a URL cannot make
   * Herald read its own network for the caller.
   */
  allowPrivateAddresses: z.boolean(),
};

/** A partial update; retry and retention fields may be given one at a time. */
export const settingsPatchBody = z
  .object({
    ...settingsFields,
    retry: z.object(retryFields).partial().strict(),
    retention: z.object(retentionFields).partial().strict(),
    attachments: z.object(attachmentsFields).partial().strict(),
  })
  .partial()
  .strict();
export type SettingsPatch = z.input<typeof settingsPatchBody>;

export const retentionSchema = named('Retention', z.strictObject(retentionFields));
export type Retention = z.infer<typeof retentionSchema>;
export const retryPolicySchema = named('RetryPolicy', z.strictObject(retryFields));
export const attachmentLimitsSchema = named('AttachmentLimits', z.strictObject(attachmentsFields));
export type AttachmentLimits = z.infer<typeof attachmentLimitsSchema>;
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/** The About panel's facts, beside the settings. */
export const aboutSchema = named(
  'About',
  z.strictObject({
    version: z.string(),
    dataDir: z.string(),
    /** The address Herald listens on. */
    listen: z.string(),
    /** Deliveries wait (the dispatcher is paused). */
    deliveriesPaused: z.boolean(),
  }),
);
export type About = z.infer<typeof aboutSchema>;

export const settingsSchema = named(
  'Settings',
  z.strictObject({
    allowTaskId: z.boolean(),
    retry: retryPolicySchema,
    v1WaitMs: z.number().int(),
    rateLimitPerMinute: z.number().int(),
    retention: retentionSchema,
    publicBaseUrl: z.string(),
    sendApi: z.strictObject({ httpStatus: z.enum(SEND_API_HTTP_STATUSES) }),
    showRemoteImages: z.boolean(),
    requireTwoFactor: z.boolean(),
    allowPrivateAddresses: z.boolean(),
    attachments: attachmentLimitsSchema,
    about: aboutSchema,
  }),
);
export type Settings = z.infer<typeof settingsSchema>;

export const settingsRoutes = {
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/settings`,
    summary: 'Settings and about',
    response: settingsSchema,
  }),
  update: route({
    method: 'put',
    path: `${CONSOLE_BASE}/settings`,
    summary: 'Change settings (any of them; retry and retention fields one at a time too)',
    body: settingsPatchBody,
    response: settingsSchema,
  }),
};
