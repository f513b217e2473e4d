import { z } from 'zod';

import { named } from './common';

/**
 * Why a V2 send (or a schedule of a template) delivers a marker as written or drops a value
 * (issue 41 §2). Such a send is still accepted, as the interface contract requires; the
 * warnings say what went wrong (docs/send-api.md "Placeholder warnings").
 *
 * - `notDeclared`: the caller gave a value for a key the template does not declare; it is
 *   not used.
 * - `noValue`: a declared key whose marker is in the template's content got no value and has no
 *   default; its marker stays as written.
 * - `markerNotDeclared`: a marker in the template's content names a key the template does not
 *   declare; it stays as written whatever the caller sends.
 * - `textAsContent`: the request's `text` was sent as the message's content in place of the
 *   template's, which has no `{{text}}` (server/features/sending/v2-text.ts).
 * - `textNotUsed`: the request's `text` was left out: the template has no `{{text}}`, and the
 *   placeholder values sent fill its content.
 */
export const PLACEHOLDER_WARNING_KINDS = [
  'notDeclared',
  'noValue',
  'markerNotDeclared',
  'textAsContent',
  'textNotUsed',
] as const;
export type PlaceholderWarningKind = (typeof PLACEHOLDER_WARNING_KINDS)[number];

/** A warning as the console API carries it: its kind and key for the console's own words. */
export const placeholderWarningSchema = named(
  'PlaceholderWarning',
  z.strictObject({
    kind: z.enum(PLACEHOLDER_WARNING_KINDS),
    key: z.string(),
    /** The sentence the send API answered with. */
    message: z.string(),
  }),
);
export type PlaceholderWarning = z.infer<typeof placeholderWarningSchema>;
