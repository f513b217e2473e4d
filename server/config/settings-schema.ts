import { z } from 'zod';

import {
  attachmentsFields,
  retentionFields,
  retryFields,
  settingsFields,
  settingsPatchBody,
} from '../../contract/console/settings';

/** Retry policy of the delivery queue; defaults give 6 attempts over about 31 minutes. */
export const retryPolicySchema = z.object({
  maxAttempts: retryFields.maxAttempts.default(6),
  baseDelayMs: retryFields.baseDelayMs.default(60_000),
  maxDelayMs: retryFields.maxDelayMs.default(16 * 60_000),
  jitter: retryFields.jitter.default(0.2),
});
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/** How long history is kept; the retention job prunes what is older (docs/architecture.md). */
export const retentionSchema = z.object({
  sendsDays: retentionFields.sendsDays.default(90),
  messagesDays: retentionFields.messagesDays.default(0),
  auditDays: retentionFields.auditDays.default(365),
});
export type Retention = z.infer<typeof retentionSchema>;

/** Files sent with a message: issue 43 §2's defaults. */
export const attachmentLimitsSchema = z.object({
  maxFileMb: attachmentsFields.maxFileMb.default(15),
  maxFiles: attachmentsFields.maxFiles.default(10),
  maxTotalMb: attachmentsFields.maxTotalMb.default(1024),
  keepDays: attachmentsFields.keepDays.default(7),
});
export type AttachmentLimits = z.infer<typeof attachmentLimitsSchema>;

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
  requireTwoFactor: settingsFields.requireTwoFactor.default(false),
  allowPrivateAddresses: settingsFields.allowPrivateAddresses.default(false),
  attachments: attachmentLimitsSchema.default(attachmentLimitsSchema.parse({})),
});
export type Settings = z.infer<typeof settingsSchema>;

export const defaultSettings: Settings = settingsSchema.parse({});

/** A partial update, as the console sends it (the contract's rules, without defaults). */
export const settingsPatchSchema = settingsPatchBody;
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;
