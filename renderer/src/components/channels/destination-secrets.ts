/**
 * The server refuses to send a stored secret to a new destination (a changed URL, server, host
 * or account). The channel dialog follows the same rule as the user edits: once a destination
 * field differs from the saved one, the masked secrets are emptied so they are typed again.
 */

import type { ChannelConfig } from '@contract';

import { MASKED_SECRET } from './fields';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Destination fields whose value differs from the saved config. */
export function changedDestinations(
  saved: ChannelConfig,
  edited: ChannelConfig,
  destinationFields: readonly string[],
): string[] {
  const norm = (v: unknown) => (v === undefined || v === null ? '' : String(v).trim());
  return destinationFields.filter((f) => norm(saved[f]) !== norm(edited[f]));
}

/** Names of the saved secrets still sent back masked (`field` or `field.key` in a map). */
export function maskedSecrets(config: ChannelConfig, secretFields: readonly string[]): string[] {
  const names: string[] = [];
  for (const field of secretFields) {
    const value = config[field];
    if (value === MASKED_SECRET) names.push(field);
    else if (isRecord(value))
      for (const [k, v] of Object.entries(value))
        if (v === MASKED_SECRET) names.push(`${field}.${k}`);
  }
  return names;
}

/** The config with every masked secret emptied, so the form asks for it again. */
export function emptyMaskedSecrets(
  config: ChannelConfig,
  secretFields: readonly string[],
): ChannelConfig {
  const next = { ...config };
  for (const field of secretFields) {
    const value = next[field];
    if (value === MASKED_SECRET) next[field] = '';
    else if (isRecord(value))
      next[field] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, v === MASKED_SECRET ? '' : v]),
      );
  }
  return next;
}

/**
 * Puts the masks back on secrets left empty once the destination is the saved one again, so
 * undoing a change also undoes its side effect.
 */
export function restoreMaskedSecrets(
  config: ChannelConfig,
  saved: ChannelConfig,
  secretFields: readonly string[],
): ChannelConfig {
  const next = { ...config };
  for (const field of secretFields) {
    const before = saved[field];
    const now = next[field];
    if (before === MASKED_SECRET && now === '') next[field] = MASKED_SECRET;
    else if (isRecord(before) && isRecord(now))
      next[field] = Object.fromEntries(
        Object.entries(now).map(([k, v]) => [
          k,
          v === '' && before[k] === MASKED_SECRET ? MASKED_SECRET : v,
        ]),
      );
  }
  return next;
}
