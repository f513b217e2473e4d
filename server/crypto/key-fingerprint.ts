import { createHmac, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';

import { Setting } from '../db/models/setting';
import type { WriteLock } from '../db/writer';
import { KEY_FILE, createDataDirKey, type ServerKey } from './server-key';

/** The settings row that holds the fingerprint; a row, so no schema change was needed. */
export const FINGERPRINT_SETTING = 'server-key-fingerprint';

/**
 * Versioned so a later scheme can tell its own fingerprints apart. The label is the HMAC's
 * message and the key is its key: the fingerprint says nothing about the key to whoever reads
 * the database, yet two processes with the same key compute the same value.
 */
const SCHEME = 'hmac-sha256:v1';
const LABEL = 'herald:server-key-fingerprint:v1';

export function keyFingerprint(key: Buffer): string {
  return `${SCHEME}:${createHmac('sha256', key).update(LABEL).digest('base64url')}`;
}

/** Enough of a fingerprint to tell two apart in a message, not the whole value. */
const short = (fingerprint: string) => fingerprint.slice(SCHEME.length + 1, SCHEME.length + 13);

interface StoredFingerprint {
  fingerprint: string;
  recordedAt: string;
}

/** What a refusal says happened; a tool other than the server names its own outcome. */
const NOT_STARTED = 'Herald did not start, so nothing was changed.';

export class ServerKeyMismatchError extends Error {
  constructor(origin: string, stored: string, ours: string, outcome = NOT_STARTED, hint = '') {
    super(
      `The server key from ${origin} does not match the key this database's tokens and secrets ` +
        `were sealed with (database: ${short(stored)}…, this process: ${short(ours)}…). ${hint}Every ` +
        'Herald process on one database needs the same key: set HERALD_SECRET_KEY or ' +
        "HERALD_SECRET_KEY_FILE to the other processes' key, or put the original secret.key back " +
        `in the data folder. ${outcome}`.trimEnd(),
    );
    this.name = 'ServerKeyMismatchError';
  }
}

export class ServerKeyMissingError extends Error {
  constructor(file: string, stored: string, outcome = NOT_STARTED) {
    super(
      `${file} is missing, but this database's tokens and secrets were sealed with a key ` +
        `(fingerprint ${short(stored)}…). Put that key back (restore secret.key from a backup, ` +
        'or set HERALD_SECRET_KEY or HERALD_SECRET_KEY_FILE to it); a new key would open none ' +
        `of them. ${outcome}`.trimEnd(),
    );
    this.name = 'ServerKeyMissingError';
  }
}

/**
 * A HERALD_SECRET_KEY that holds a key file's text without `base64:` is a passphrase, as it
 * always was (an install may use such a passphrase). When the text is the database's key, say
 * exactly what to set instead.
 */
function unprefixedHint(configured: ServerKey, stored: string): string {
  if (!configured.unprefixedKey) return '';
  const prefix = '"base64:"';
  return same(stored, keyFingerprint(configured.unprefixedKey))
    ? `${configured.origin} holds this database's key as a key file writes it, but without ${prefix} ` +
        `a value is read as a passphrase: set ${configured.origin}=base64:<the same text> ` +
        `(e.g. ${configured.origin}="base64:$(cat secret.key)"), or point HERALD_SECRET_KEY_FILE at the file. `
    : `(${configured.origin} looks like a key file's text, which without ${prefix} is read as a ` +
        'passphrase; a key file\'s text goes after "base64:".) ';
}

function storedFingerprint(value: unknown): string | null {
  const v = value as Partial<StoredFingerprint> | null;
  return typeof v?.fingerprint === 'string' ? v.fingerprint : null;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Refuses, as the server's start does (settleServerKey), a key other than the one whose
 * fingerprint the database holds, or no key where it holds one; reads only, so a tool can
 * check before it migrates or writes anything. A database Herald never started (no settings
 * table yet, or no fingerprint) takes any key.
 */
export async function checkServerKey(
  configured: ServerKey | null,
  dataDir: string,
  outcome?: string,
): Promise<void> {
  const sequelize = Setting.sequelize;
  if (!sequelize || !(await sequelize.getQueryInterface().tableExists(Setting.tableName))) return;
  const stored = storedFingerprint((await Setting.findByPk(FINGERPRINT_SETTING))?.value);
  if (!stored) return;
  if (!configured) throw new ServerKeyMissingError(join(dataDir, KEY_FILE), stored, outcome);
  const ours = keyFingerprint(configured.key);
  if (!same(stored, ours)) {
    const hint = unprefixedHint(configured, stored);
    throw new ServerKeyMismatchError(configured.origin, stored, ours, outcome, hint);
  }
}

/**
 * The master key this process may use against this database, after the migrations ran and
 * before anything is sealed or opened with it. The first start (or the first of this version
 * on an existing install) records the key's fingerprint; every later start, of any process,
 * must present a key with the same fingerprint. `configured` is what readServerKey found
 * (before the database was opened, so a bad key file stops the start first). A data folder whose key file is gone gets a
 * new one only while the database has no fingerprint yet.
 */
export async function settleServerKey(
  configured: ServerKey | null,
  dataDir: string,
  writeLock: WriteLock,
  now: () => Date = () => new Date(),
): Promise<ServerKey> {
  const stored = storedFingerprint((await Setting.findByPk(FINGERPRINT_SETTING))?.value);
  if (!configured && stored) throw new ServerKeyMissingError(join(dataDir, KEY_FILE), stored);
  const serverKey = configured ?? createDataDirKey(dataDir);
  const ours = keyFingerprint(serverKey.key);
  if (stored) {
    if (!same(stored, ours)) {
      const hint = unprefixedHint(serverKey, stored);
      throw new ServerKeyMismatchError(serverKey.origin, stored, ours, undefined, hint);
    }
    return serverKey;
  }
  // Inside the write transaction: of processes starting together, the first to commit wins and
  // the others compare against what it wrote.
  const winner = await writeLock.run(async ({ transaction }) => {
    const value: StoredFingerprint = { fingerprint: ours, recordedAt: now().toISOString() };
    // INSERT OR IGNORE / ON CONFLICT DO NOTHING: a row another process wrote first stays.
    await Setting.bulkCreate([{ key: FINGERPRINT_SETTING, value }], {
      ignoreDuplicates: true,
      transaction,
    });
    const row = await Setting.findByPk(FINGERPRINT_SETTING, { transaction });
    return storedFingerprint(row?.value);
  });
  if (winner !== null && !same(winner, ours)) {
    throw new ServerKeyMismatchError(serverKey.origin, winner, ours);
  }
  return serverKey;
}
