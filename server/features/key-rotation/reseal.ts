import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

import { SecretBox } from '../../crypto/secret-box';
import type { SealedValues } from './sealed-values';

/** The new sealing of one sealed string, or null when it does not open with the old key. */
export type Reseal = (sealed: string) => string | null;

/** Opens with one key, seals with the other. */
export function resealWith(from: SecretBox, to: SecretBox): Reseal {
  return (sealed) => {
    let plain: string;
    try {
      plain = from.open(sealed);
    } catch {
      return null;
    }
    return to.seal(plain);
  };
}

export interface ResealCount {
  what: string;
  /** Sealed strings sealed again under the new key. */
  resealed: number;
  /**
   * Strings that look sealed (`enc:v1:`) but do not open with the current key, left as they
   * were: nothing could open them before the rotation either.
   */
  unopened: number;
  /** Why nothing was looked at: the database has no such table or column. */
  absent?: string;
}

/** The declared places this database has; a missing table or column is reported, not an error. */
export async function placesPresent(
  sequelize: Sequelize,
  places: readonly SealedValues[],
): Promise<Map<SealedValues, string | null>> {
  const qi = sequelize.getQueryInterface();
  const present = new Map<SealedValues, string | null>();
  for (const place of places) {
    if (!(await qi.tableExists(place.table))) {
      present.set(place, `no table ${place.table}`);
      continue;
    }
    const columns = await qi.describeTable(place.table);
    present.set(place, place.column in columns ? null : `no column ${place.table}.${place.column}`);
  }
  return present;
}

/** Every sealed string inside a JSON value, sealed again; the count of each outcome. */
export function resealJson(
  value: unknown,
  reseal: Reseal,
): { value: unknown; resealed: number; unopened: number } {
  let resealed = 0;
  let unopened = 0;
  const walk = (v: unknown): unknown => {
    if (SecretBox.isSealed(v)) {
      const next = reseal(v);
      if (next === null) {
        unopened++;
        return v;
      }
      resealed++;
      return next;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner)]));
    }
    return v;
  };
  const next = walk(value);
  return { value: next, resealed, unopened };
}

/**
 * Re-seals every sealed value of the declared places inside `transaction`; a failure throws and
 * the caller's transaction rolls every change back. Only rows whose column holds `enc:v1:` are
 * read, so the cost follows the secrets, not the size of the tables.
 */
export async function resealAll(
  sequelize: Sequelize,
  transaction: Transaction,
  places: ReadonlyMap<SealedValues, string | null>,
  reseal: Reseal,
): Promise<ResealCount[]> {
  const q = (name: string) => sequelize.getQueryInterface().quoteIdentifier(name);
  const counts: ResealCount[] = [];
  for (const [place, absent] of places) {
    const count: ResealCount = { what: place.what, resealed: 0, unopened: 0 };
    counts.push(count);
    if (absent !== null) {
      count.absent = absent;
      continue;
    }
    const rows = await sequelize.query<{ k: string | number; v: unknown }>(
      `SELECT ${q(place.key)} AS k, ${q(place.column)} AS v FROM ${q(place.table)}
       WHERE CAST(${q(place.column)} AS TEXT) LIKE '%enc:v1:%' ORDER BY ${q(place.key)}`,
      { type: QueryTypes.SELECT, transaction },
    );
    for (const row of rows) {
      const next = resealColumn(place, row.v, reseal);
      count.resealed += next.resealed;
      count.unopened += next.unopened;
      if (next.resealed === 0) continue;
      await sequelize.query(
        `UPDATE ${q(place.table)} SET ${q(place.column)} = :value WHERE ${q(place.key)} = :key`,
        { replacements: { value: next.stored, key: row.k }, transaction },
      );
    }
  }
  return counts;
}

/** One column's value re-sealed, in the form it is stored (JSON as text on both databases). */
function resealColumn(
  place: SealedValues,
  stored: unknown,
  reseal: Reseal,
): { stored: string; resealed: number; unopened: number } {
  if (place.shape === 'text') {
    const next = resealJson(stored, reseal);
    return { stored: next.value as string, resealed: next.resealed, unopened: next.unopened };
  }
  // SQLite hands JSON back as text, PostgreSQL parsed.
  let value: unknown = stored;
  if (typeof stored === 'string') {
    try {
      value = JSON.parse(stored);
    } catch {
      return { stored, resealed: 0, unopened: 0 };
    }
  }
  const next = resealJson(value, reseal);
  return { stored: JSON.stringify(next.value), resealed: next.resealed, unopened: next.unopened };
}
