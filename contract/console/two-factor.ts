import { z } from 'zod';

import { CONSOLE_BASE, named, nothing } from '../common';
import { route } from '../route';

/**
 * A person's second factor (docs/security.md "Two-factor sign-in"): a TOTP authenticator app,
 * and recovery codes for when the phone is gone.
 */

/** `off`; `on`; `required`: off, and the administrator requires it, so enrol now. */
export const TWO_FACTOR_STATES = ['off', 'on', 'required'] as const;
export type TwoFactorState = (typeof TWO_FACTOR_STATES)[number];
export const twoFactorStateSchema = named('TwoFactorState', z.enum(TWO_FACTOR_STATES));

/** How many recovery codes a new set has. */
export const RECOVERY_CODE_COUNT = 10;

/** A code from the app (6 digits) or a recovery code, as typed: spaces and dashes allowed. */
export const oneTimeCodeSchema = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'is required')
  .max(40, 'is not a code');

export const twoFactorStatusSchema = named(
  'TwoFactorStatus',
  z.strictObject({
    enabled: z.boolean(),
    /** The administrator requires two-factor for every account (it cannot be turned off). */
    required: z.boolean(),
    /** Unused recovery codes (0 while off). */
    recoveryCodesLeft: z.number().int().min(0),
    /** A secret was set up and waits for its first code. */
    pending: z.boolean(),
  }),
);
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

export const twoFactorSetupSchema = z.strictObject({
  /** Base32, for typing into an app by hand. */
  secret: z.string(),
  /** For a QR code: `otpauth://totp/Herald:<username>?secret=…`. */
  otpauthUrl: z.string(),
});

/** Shown once: Herald keeps only their hashes. */
export const recoveryCodesSchema = z.strictObject({ recoveryCodes: z.array(z.string()) });

export const twoFactorCodeBody = z.object({ code: oneTimeCodeSchema }).strict();
export const twoFactorDisableBody = z
  .object({ password: z.string({ error: 'is required' }).min(1, 'is required').max(200) })
  .strict();

export const twoFactorRoutes = {
  status: route({
    method: 'get',
    path: `${CONSOLE_BASE}/account/two-factor`,
    summary:
      'Whether your two-factor sign-in is on, required, and how many recovery codes are left',
    response: twoFactorStatusSchema,
  }),
  setup: route({
    method: 'post',
    path: `${CONSOLE_BASE}/account/two-factor/setup`,
    summary: 'A fresh TOTP secret and its otpauth:// URL, held until a code confirms it',
    response: twoFactorSetupSchema,
    refusals: { 409: 'two-factor is already on' },
  }),
  enable: route({
    method: 'post',
    path: `${CONSOLE_BASE}/account/two-factor/enable`,
    summary: 'Turn two-factor on with a code from the app; answers 10 recovery codes, shown once',
    body: twoFactorCodeBody,
    response: recoveryCodesSchema,
    refusals: { 400: 'the code is not correct', 409: 'nothing was set up, or it is already on' },
  }),
  disable: route({
    method: 'post',
    path: `${CONSOLE_BASE}/account/two-factor/disable`,
    summary: 'Turn two-factor off with your password',
    body: twoFactorDisableBody,
    response: nothing,
    refusals: { 400: 'the password is not correct', 403: 'your administrator requires it' },
  }),
  recoveryCodes: route({
    method: 'post',
    path: `${CONSOLE_BASE}/account/two-factor/recovery-codes`,
    summary: 'A new set of recovery codes (the old ones stop), with a code from the app',
    body: twoFactorCodeBody,
    response: recoveryCodesSchema,
    refusals: { 400: 'the code is not correct', 409: 'two-factor is off' },
  }),
};
