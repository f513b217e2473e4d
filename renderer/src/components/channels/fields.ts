/**
 * Reading a kind's config fields as GET /channel-types serves them (each kind declares its
 * fields once, in contract/channel-kinds; the console draws every form from that).
 */

import type { ChannelConfig, ChannelField } from '@contract';

/** The masked value the server sends for a secret that is set. */
export const MASKED_SECRET = '******';

/** Config with each field's form default filled in where the key is missing. */
export function withFormDefaults(
  config: ChannelConfig,
  fields: readonly ChannelField[],
): ChannelConfig {
  const next = { ...config };
  for (const field of fields) {
    if (
      next[field.key] === undefined &&
      field.formDefault !== null &&
      field.formDefault !== undefined
    )
      next[field.key] = structuredClone(field.formDefault);
  }
  return next;
}

const isSet = (value: unknown): boolean =>
  value !== undefined && value !== null && value !== '' && value !== false;

/** Whether the form shows a field, given what the other fields hold now. */
export function isShown(field: ChannelField, config: ChannelConfig): boolean {
  const condition = field.dependsOn;
  if (!condition) return true;
  const value = config[condition.key];
  if ('set' in condition) return isSet(value) === condition.set;
  if ('oneOf' in condition) return condition.oneOf.includes(value as never);
  return !condition.noneOf.includes(value as never);
}
