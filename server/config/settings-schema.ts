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

const settingsFields = {
  /** V1 accepts a plaintext task_id; off means task_id answers 401. */
  allowTaskId: z.boolean(),
  /** How long V1 waits for the first attempt of every delivery before answering. */
  v1WaitMs: z.number().int().min(0).max(120_000),
  /** Per-token send limit per minute; 0 = off. */
  rateLimitPerMinute: z.number().int().min(0).max(100_000),
  /** The reader loads remote images in hosted messages without asking (they tell the sender when a message was read). */
  showRemoteImages: z.boolean(),
};

/** Settings an administrator changes from the console; stored in the settings table. */
export const settingsSchema = z.object({
  allowTaskId: settingsFields.allowTaskId.default(true),
  retry: retryPolicySchema.default(retryPolicySchema.parse({})),
  v1WaitMs: settingsFields.v1WaitMs.default(15_000),
  rateLimitPerMinute: settingsFields.rateLimitPerMinute.default(0),
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
  .object({ ...settingsFields, retry: z.object(retryFields).partial().strict() })
  .partial()
  .strict();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export const LIMITS = {
  bodyBytes: 1024 * 1024,
  titleChars: 1000,
  contentChars: 200_000,
  recipients: 100,
  mentions: 100,
  urlChars: 2048,
  idempotencyKeyChars: 255,
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
} as const;
