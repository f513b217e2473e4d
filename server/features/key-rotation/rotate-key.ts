import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { QueryTypes, type Sequelize } from 'sequelize';

import { parseDatabaseUrl, redactDatabaseUrl } from '../../config/database-url';
import { readSecretVariable } from '../../config/secret-variable';
import { parseServerKeySource, type ServerKeySource } from '../../config/server-key-source';
import { FINGERPRINT_SETTING, keyFingerprint } from '../../crypto/key-fingerprint';
import { SecretBox } from '../../crypto/secret-box';
import { KEY_FILE, readServerKey, tokenPart } from '../../crypto/server-key';
import { acquireDataDirLock, DataDirLockedError, type DataDirLock } from '../../data-dir/lock';
import { DB_FILE, PRIVATE_DIR_MODE } from '../../data-dir/permissions';
import { openDatabase, type Database } from '../../db/database';
import { openPostgresDatabase } from '../../db/postgres/open-postgres';
import {
  installPendingKey,
  keepOldKeyFile,
  pendingFileOf,
  readKeyFile,
  removeQuietly,
  writeKeyFile,
} from './key-files';
import { takePostgresProcessLock, type HeldLock } from './postgres-process-lock';
import { placesPresent, resealAll, resealWith, type ResealCount } from './reseal';
import { RotationRefused } from './rotation-refused';
import { SEALED_VALUES, type SealedValues } from './sealed-values';

const NOTHING_CHANGED = 'Nothing was changed.';

/** The database was re-sealed, but the new key file is not in place yet: said as is. */
export class RotationUnfinished extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RotationUnfinished';
  }
}

export interface RotateOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** --tokens: a new token key too, so every task's and template's token changes. */
  replaceTokens: boolean;
  now?: () => Date;
  /** The declared places; tests narrow or extend it. */
  places?: readonly SealedValues[];
}

export interface RotationReport {
  /** Where the sealed values are: the SQLite file, or the PostgreSQL URL without its password. */
  database: string;
  onPostgres: boolean;
  counts: ResealCount[];
  tokens: 'kept' | 'replaced';
  /** The file that now holds the key. */
  keyFile: string;
  /** Where the old key was kept; null when it was not in a file (HERALD_SECRET_KEY). */
  keptOldKey: string | null;
  source: ServerKeySource['kind'];
  /** The variable the old key came from, when it came from one. */
  sourceName: string | null;
  /** An earlier rotation committed but was cut off before its key file was put in place. */
  finishedEarlier: boolean;
}

/** The PostgreSQL URL this process would use, or null for the folder's SQLite file. */
export function databaseUrlOf(env: NodeJS.ProcessEnv): string | null {
  const url = readSecretVariable(env, 'HERALD_DATABASE_URL');
  return parseDatabaseUrl(url.value, url.name);
}

/** The file the key is kept in after the rotation: the one it came from, else the folder's. */
export function keyFileOf(source: ServerKeySource, dataDir: string): string {
  return source.kind === 'file' ? source.path : join(dataDir, KEY_FILE);
}

interface Opened {
  db: Database;
  database: string;
  onPostgres: boolean;
  release(): Promise<void>;
}

/**
 * The database as Herald would open it for this folder, with every Herald kept away from it:
 * the folder's lock (a Herald started on it meanwhile stops at once) and, on PostgreSQL, the
 * processes' lock (a Herald of any folder). Refuses while a Herald runs.
 */
async function openStopped(dataDir: string, url: string | null): Promise<Opened> {
  let folderLock: DataDirLock | null = null;
  if (existsSync(dataDir)) {
    try {
      folderLock = acquireDataDirLock(dataDir);
    } catch (err) {
      if (!(err instanceof DataDirLockedError)) throw err;
      throw new RotationRefused(
        `Herald is running on ${dataDir} (pid ${err.pid}). Stop it first: rotate-key re-seals ` +
          `every secret at once, which a running Herald would not see. ${NOTHING_CHANGED}`,
      );
    }
  }
  let pgLock: HeldLock | null = null;
  let db: Database | null = null;
  try {
    if (url) {
      pgLock = await takePostgresProcessLock(url);
      if (!pgLock) {
        throw new RotationRefused(
          `A Herald process is running on ${redactDatabaseUrl(url)} (it holds Herald's process ` +
            'lock there). Stop every Herald process on this database first: rotate-key ' +
            `re-seals every secret at once, which a running Herald would not see. ${NOTHING_CHANGED}`,
        );
      }
      db = await openPostgresDatabase(url);
    } else {
      const file = join(dataDir, DB_FILE);
      if (!existsSync(file)) {
        throw new RotationRefused(
          `${dataDir} holds no Herald database (${DB_FILE}): give the data folder with --data-dir ` +
            `or HERALD_DATA_DIR, or HERALD_DATABASE_URL for PostgreSQL. ${NOTHING_CHANGED}`,
        );
      }
      db = await openDatabase(file);
    }
  } catch (err) {
    await pgLock?.release();
    folderLock?.release();
    throw err;
  }
  const opened = db;
  return {
    db: opened,
    database: url ? redactDatabaseUrl(url) : join(dataDir, DB_FILE),
    onPostgres: url !== null,
    async release() {
      try {
        await opened.close();
      } finally {
        await pgLock?.release();
        folderLock?.release();
      }
    },
  };
}

/** The fingerprint the database holds, or null (a database Herald never started). */
async function storedFingerprint(sequelize: Sequelize): Promise<string | null> {
  if (!(await sequelize.getQueryInterface().tableExists('settings'))) return null;
  const rows = await sequelize.query<{ value: unknown }>(
    'SELECT value FROM settings WHERE key = :key',
    { type: QueryTypes.SELECT, replacements: { key: FINGERPRINT_SETTING } },
  );
  const raw = rows[0]?.value;
  const value = typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw;
  const fingerprint = (value as { fingerprint?: unknown } | null)?.fingerprint;
  return typeof fingerprint === 'string' ? fingerprint : null;
}

const NO_FINGERPRINT =
  'This database holds no fingerprint of its key yet (Herald records it at its first start): ' +
  `start Herald on it once with this version, stop it, then rotate. ${NOTHING_CHANGED}`;

/**
 * Re-seals every sealed value (SEALED_VALUES) under a new key in one transaction, with every
 * Herald stopped, then puts the new key where the old one was and keeps the old one beside it.
 *
 * The order makes every interruption recoverable: the new key is written and flushed to
 * `<key file>.new` first; the transaction re-seals and records the new key's fingerprint; only
 * then is the old file copied aside and the new one renamed into place. Cut off before the
 * commit, nothing changed (the stale `.new` is removed at the next run); cut off after it, the
 * next run finds the database sealed with the `.new` key and puts it in place.
 */
export async function rotateServerKey(options: RotateOptions): Promise<RotationReport> {
  const { dataDir, env } = options;
  const now = options.now ?? (() => new Date());
  const source = parseServerKeySource(env.HERALD_SECRET_KEY, env.HERALD_SECRET_KEY_FILE);
  const url = databaseUrlOf(env);
  const keyFile = keyFileOf(source, dataDir);
  const pending = pendingFileOf(keyFile);
  if (source.kind === 'env' && existsSync(keyFile) && !existsSync(pending)) {
    throw new RotationRefused(
      `The key comes from ${source.name}, but ${keyFile} exists too, and the new key is to be ` +
        `written there. Move that file away first (Herald does not read it while ${source.name} ` +
        `is set). ${NOTHING_CHANGED}`,
    );
  }
  const opened = await openStopped(dataDir, url);
  try {
    const { sequelize } = opened.db;
    const stored = await storedFingerprint(sequelize);
    if (stored === null) throw new RotationRefused(NO_FINGERPRINT);
    const base = {
      database: opened.database,
      onPostgres: opened.onPostgres,
      keyFile,
      source: source.kind,
      sourceName: source.kind === 'data-dir' ? null : source.name,
    };

    const waiting = readKeyFile(pending);
    if (waiting && keyFingerprint(waiting) === stored) {
      // An earlier run committed and was cut off before the rename: finish it.
      const keptOldKey = existsSync(keyFile) ? keepOldKeyFile(keyFile, now()) : null;
      installPendingKey(keyFile);
      return {
        ...base,
        counts: [],
        tokens: 'kept',
        keptOldKey,
        finishedEarlier: true,
      };
    }
    // Left by a run that never committed (its database is still sealed with the current key).
    removeQuietly(pending);

    const current = readServerKey(source, dataDir);
    if (!current) {
      throw new RotationRefused(
        `${keyFile} is missing, and it is the key this database is sealed with: restore it (or ` +
          `set HERALD_SECRET_KEY or HERALD_SECRET_KEY_FILE to the key) before rotating. ${NOTHING_CHANGED}`,
      );
    }
    if (keyFingerprint(current.key) !== stored) {
      throw new RotationRefused(
        `The server key from ${current.origin} is not the key this database is sealed with, so ` +
          `its secrets cannot be re-sealed: give the key Herald runs with. ${NOTHING_CHANGED}`,
      );
    }

    // Without --tokens the token part stays, so every token scripts hold keeps working.
    const sealing = randomBytes(32);
    const next = options.replaceTokens ? sealing : Buffer.concat([sealing, tokenPart(current.key)]);
    if (source.kind === 'env') mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    try {
      writeKeyFile(pending, next);
    } catch (err) {
      throw new RotationRefused(
        `The new key cannot be written beside ${keyFile} (${(err as NodeJS.ErrnoException).code ?? String(err)}): ` +
          `rotate-key keeps the key where it was read from, so that folder must be writable. ${NOTHING_CHANGED}`,
      );
    }

    let counts: ResealCount[];
    try {
      const places = await placesPresent(sequelize, options.places ?? SEALED_VALUES);
      const reseal = resealWith(new SecretBox(current.key), new SecretBox(next));
      counts = await opened.db.writer.run(async ({ transaction }) => {
        const done = await resealAll(sequelize, transaction, places, reseal);
        const value = JSON.stringify({
          fingerprint: keyFingerprint(next),
          recordedAt: now().toISOString(),
        });
        await sequelize.query('UPDATE settings SET value = :value WHERE key = :key', {
          replacements: { value, key: FINGERPRINT_SETTING },
          transaction,
        });
        return done;
      });
    } catch (err) {
      removeQuietly(pending);
      throw err;
    }

    let keptOldKey: string | null;
    try {
      keptOldKey = existsSync(keyFile) ? keepOldKeyFile(keyFile, now()) : null;
      installPendingKey(keyFile);
    } catch (err) {
      throw new RotationUnfinished(
        `The database is re-sealed with the new key, but it could not be put in place ` +
          `(${(err as Error).message}). It is in ${pending}: run herald rotate-key again to ` +
          'put it in place (it finds the database sealed with it and finishes); do not delete it.',
      );
    }
    return {
      ...base,
      counts,
      tokens: options.replaceTokens ? 'replaced' : 'kept',
      keptOldKey,
      finishedEarlier: false,
    };
  } finally {
    await opened.release();
  }
}

export interface PermanentKeyReport {
  keyFile: string;
  /** The file already held this very key. */
  alreadyThere: boolean;
  sourceName: string;
}

/**
 * `--from-env`: writes the key HERALD_SECRET_KEY stands for into the data folder's secret.key,
 * owner-only, so Herald keeps it once the variable is unset (after a restore of a backup made
 * without its key, above all). The key does not change, so nothing is re-sealed and Herald may
 * be running; the key must be the database's.
 */
export async function writeKeyFromEnv(options: {
  dataDir: string;
  env: NodeJS.ProcessEnv;
}): Promise<PermanentKeyReport> {
  const { dataDir, env } = options;
  const source = parseServerKeySource(env.HERALD_SECRET_KEY, env.HERALD_SECRET_KEY_FILE);
  if (source.kind !== 'env') {
    throw new RotationRefused(
      source.kind === 'file'
        ? `--from-env writes HERALD_SECRET_KEY's key into the data folder, but the key comes from ` +
            `${source.name} (${source.path}), a file already. ${NOTHING_CHANGED}`
        : `--from-env writes HERALD_SECRET_KEY's key into the data folder, but HERALD_SECRET_KEY ` +
            `is not set. ${NOTHING_CHANGED}`,
    );
  }
  const configured = readServerKey(source, dataDir)!;
  const url = databaseUrlOf(env);
  const db = url
    ? await openPostgresDatabase(url)
    : existsSync(join(dataDir, DB_FILE))
      ? await openDatabase(join(dataDir, DB_FILE))
      : null;
  if (!db) {
    throw new RotationRefused(
      `${dataDir} holds no Herald database (${DB_FILE}) to check the key against. ${NOTHING_CHANGED}`,
    );
  }
  let key: Buffer;
  try {
    const stored = await storedFingerprint(db.sequelize);
    if (stored === null) throw new RotationRefused(NO_FINGERPRINT);
    // A key file's text given without "base64:" is a passphrase to Herald; if that text is the
    // database's key, the file gets the key it means.
    const candidates = [configured.key, configured.unprefixedKey].filter((k) => k !== undefined);
    const match = candidates.find((k) => keyFingerprint(k) === stored);
    if (!match) {
      throw new RotationRefused(
        `${source.name} is not the key this database is sealed with; writing it would not ` +
          `start Herald. ${NOTHING_CHANGED}`,
      );
    }
    key = match;
  } finally {
    await db.close();
  }
  const keyFile = join(dataDir, KEY_FILE);
  const existing = readKeyFile(keyFile);
  if (existing?.equals(key)) return { keyFile, alreadyThere: true, sourceName: source.name };
  if (existsSync(keyFile)) {
    throw new RotationRefused(
      `${keyFile} exists and holds another key: move it away first (Herald does not read it ` +
        `while ${source.name} is set). ${NOTHING_CHANGED}`,
    );
  }
  writeKeyFile(keyFile, key);
  return { keyFile, alreadyThere: false, sourceName: source.name };
}
