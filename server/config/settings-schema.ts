import { z } from 'zod';

const retryFields = {
  maxAttempts: z.number().int().min(1).max(50),
  baseDelayMs: z.number().int().min(10).max(3_600_000),
  maxDelayMs: z.number().int().min(10).max(86_400_000),
  /** 0..1: share of each delay that is randomised so retries from a burst spread out. */
  jitter: z.number().min(0).max(1),
};

/** Retry policy of the delivery queue; defaults give 6 attempts over about 31 minutes. */
export const retryPolicySchema = z.object({
  maxAttempts: retryFields.maxAttempts.default(6),
  baseDelayMs: retryFields.baseDelayMs.default(60_000),
  maxDelayMs: retryFields.maxDelayMs.default(16 * 60_000),
  jitter: retryFields.jitter.default(0.2),
});
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

const retentionFields = {
  /** Sends older than this many days are pruned with their deliveries and attempts; 0 = keep. */
  sendsDays: z.number().int().min(0).max(36_500),
  /** Hosted messages older than this many days are pruned; 0 = keep forever (the default). */
  messagesDays: z.number().int().min(0).max(36_500),
};

/** How long history is kept; the retention job prunes what is older (docs/architecture.md). */
export const retentionSchema = z.object({
  sendsDays: retentionFields.sendsDays.default(90),
  messagesDays: retentionFields.messagesDays.default(0),
});
export type Retention = z.infer<typeof retentionSchema>;

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

/**
 * How the send APIs use the HTTP status: `code` mirrors the envelope's code (Herald's default);
 * `always200` answers HTTP 200 and carries the code in the envelope only, as Message Nest does
 * (the Message Nest importer turns it on).
 */
export const sendApiSchema = z.object({
  httpStatus: z.enum(['code', 'always200']).default('code'),
});

const settingsFields = {
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
      httpStatus: z.enum(['code', 'always200'], { error: 'must be "code" or "always200"' }),
    })
    .strict(),
  /** The reader loads remote images in hosted messages without asking (they tell the sender when a message was read). */
  showRemoteImages: z.boolean(),
};

/** Settings an administrator changes from the console; stored in the settings table. */
export const settingsSchema = z.object({
  allowTaskId: settingsFields.allowTaskId.default(false),
  retry: retryPolicySchema.default(retryPolicySchema.parse({})),
  v1WaitMs: settingsFields.v1WaitMs.default(15_000),
  rateLimitPerMinute: settingsFields.rateLimitPerMinute.default(0),
  retention: retentionSchema.default(retentionSchema.parse({})),
  publicBaseUrl: settingsFields.publicBaseUrl.default(''),
  sendApi: settingsFields.sendApi.default({ httpStatus: 'code' }),
  showRemoteImages: settingsFields.showRemoteImages.default(false),
});
export type Settings = z.infer<typeof settingsSchema>;

export const defaultSettings: Settings = settingsSchema.parse({});

/**
 * A partial update; nested retry fields may be given one at a time. Built from the fields
 * without their defaults: zod applies defaults inside .partial(), which would reset every
 * setting a patch leaves out.
 */
export const settingsPatchSchema = z
  .object({
    ...settingsFields,
    retry: z.object(retryFields).partial().strict(),
    retention: z.object(retentionFields).partial().strict(),
  })
  .partial()
  .strict();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;
