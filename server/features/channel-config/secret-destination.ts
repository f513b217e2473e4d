import { isDeepStrictEqual } from 'node:util';

import type { AnyChannelAdapter } from '../../channels/channel-adapter';
import { AppError } from '../../lib/errors';
import { SECRET_MASK } from './channel-secrets';

type Config = Record<string, unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isSet = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

/**
 * The stored secrets an edit keeps without re-entering them (sent back as the mask, or left
 * out), as `field` or `field.key` for a map of secrets (a webhook's secret headers).
 */
export function keptSecrets(
  stored: Config,
  edit: Config,
  secretFields: readonly string[],
): string[] {
  const kept: string[] = [];
  for (const field of secretFields) {
    const before = stored[field];
    const after = edit[field];
    if (isRecord(before)) {
      const keys = Object.keys(before).filter((k) => isSet(before[k]));
      if (!(field in edit) || after === SECRET_MASK) kept.push(...keys.map((k) => `${field}.${k}`));
      else if (isRecord(after))
        kept.push(...keys.filter((k) => after[k] === SECRET_MASK).map((k) => `${field}.${k}`));
    } else if (isSet(before) && (!(field in edit) || after === SECRET_MASK)) {
      kept.push(field);
    }
  }
  return kept;
}

/**
 * Refuses an edit that points the channel somewhere new (any destination field differs, after
 * the kind's own normalisation) while keeping stored secrets: they were entered for the old
 * destination, and sending them to the new one would hand them to whoever runs it.
 */
export function assertSecretsFollowDestination(
  adapter: AnyChannelAdapter,
  before: Config,
  after: Config,
  kept: readonly string[],
): void {
  if (kept.length === 0) return;
  const changed = adapter.destinationFields.filter(
    (field) => !isDeepStrictEqual(before[field], after[field]),
  );
  if (changed.length === 0) return;
  throw new AppError(
    400,
    `config: re-enter ${kept.join(', ')}: ${changed.join(', ')} changed. ` +
      'Herald never sends a stored secret to a new destination; type the secrets again (or clear them) and save',
    { reenter: kept, changed },
  );
}
