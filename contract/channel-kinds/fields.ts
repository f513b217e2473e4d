import { z } from 'zod';

/**
 * Field schemas several kinds share. They normalise with preprocess and `overwrite` (a change
 * that keeps the type), never with `transform`: the OpenAPI document describes each config both
 * as sent and as answered, and a transform's result has no JSON Schema.
 */

const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s?#]*$/;

/** The console's forms send '' for a field left empty: it counts exactly as an absent one. */
export const emptyToUndefined = (value: unknown): unknown => (value === '' ? undefined : value);

/** As emptyToUndefined, for fields where only blanks count as empty too. */
export const blankToUndefined = (value: unknown): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/** Drops trailing slashes, so paths can be appended to a base URL. */
export const withoutTrailingSlashes = (url: string): string => url.replace(/\/+$/, '');

/** A base URL the user must give (the platform has no public server). */
export function requiredServerUrlField() {
  return z
    .string()
    .trim()
    .regex(HTTP_URL, 'serverUrl must be an http:// or https:// URL without ?query or #fragment')
    .overwrite(withoutTrailingSlashes);
}

/**
 * A self-hostable server's base URL (no query or fragment). Trailing slashes are dropped so
 * paths can be appended; an empty or missing value means `fallback` (the public server).
 */
export function serverUrlField(fallback: string) {
  return z.preprocess(emptyToUndefined, requiredServerUrlField().default(fallback));
}

/**
 * An optional API base URL (a reverse proxy of the platform's API); '' counts as not set, and
 * trailing slashes are dropped.
 */
export function optionalBaseUrlField(pattern: RegExp, message: string) {
  return z.preprocess(
    emptyToUndefined,
    z.string().trim().regex(pattern, message).overwrite(withoutTrailingSlashes).optional(),
  );
}

/** A full webhook URL as copied from the platform (it usually embeds a secret token). */
export function webhookUrlField(platform: string) {
  return z
    .string()
    .trim()
    .regex(/^https?:\/\/\S+$/, `webhookUrl must be the ${platform} webhook URL (https://…)`);
}

/** An optional free-text field; '' counts as not set. */
export function optionalText(max: number) {
  return z.preprocess(emptyToUndefined, z.string().trim().min(1).max(max).optional());
}

/** Config fields every HTTP channel accepts: an optional proxy and a timeout. */
export const httpOptionsSchema = z.object({
  proxy: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^https?:\/\/\S+$/, 'proxy must be an http:// or https:// URL')
      .optional(),
  ),
  timeoutMs: z.number().int().min(100).max(120_000).optional(),
});

/** How the console shows the proxy and the timeout: under "Advanced". */
export const httpOptionsUi = {
  proxy: {
    placeholder: 'http://proxy.example:3128',
    help: 'channelHelp.proxy',
    advanced: true,
  },
  timeoutMs: { placeholder: '10000', advanced: true },
} as const;
