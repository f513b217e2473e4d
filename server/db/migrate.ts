import type { QueryInterface, Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';

import * as initialSchema from './migrations/2026-11-22-1200-initial-schema';
import * as keepTaskIdOn from './migrations/2026-11-23-1000-keep-task-id-on-existing-installs';
import * as historyIndex from './migrations/2026-11-23-1100-history-index';
import * as previewKeys from './migrations/2026-11-23-1200-hosted-message-preview-keys';
import * as schedules from './migrations/2026-11-23-1300-schedules';
import * as messageNestImport from './migrations/2026-11-23-1400-message-nest-import';
import * as sharedLimits from './migrations/2026-11-23-1600-shared-limits';
import * as leaseToken from './migrations/2026-11-25-0800-delivery-lease-token';
import * as priorityAndDedup from './migrations/2026-11-26-1000-priority-and-dedup';
import * as templateHookSecret from './migrations/2026-11-26-1100-template-hook-secret';
import * as usersAndRoles from './migrations/2026-11-27-1000-users-and-roles';
import * as perPersonReads from './migrations/2026-11-27-1100-per-person-reads';
import * as auditLog from './migrations/2026-11-27-1200-audit-log';
import * as twoFactor from './migrations/2026-11-27-1300-two-factor';
import * as instanceTemplateCode from './migrations/2026-11-28-1000-instance-template-code';
import * as lighterHotPath from './migrations/2026-11-28-1100-lighter-hot-path';
import * as hostedInsertLock from './migrations/2026-11-29-1000-hosted-insert-lock';
import * as sealProxyCredentials from './migrations/2026-11-30-1000-seal-proxy-credentials';
import * as hostedPublicLink from './migrations/2026-12-01-1000-hosted-public-link';
import * as sendWarnings from './migrations/2026-12-01-1100-send-warnings';
import * as auditNames from './migrations/2026-12-01-1200-audit-names';
import * as webPush from './migrations/2026-12-02-1000-web-push';
import * as attachments from './migrations/2026-12-02-1100-attachments';
import * as remoteImageChoices from './migrations/2026-12-02-1200-remote-image-choices';
import * as hostedAttachments from './migrations/2026-12-02-1300-hosted-attachments';
import * as ssoIdentities from './migrations/2026-12-03-1000-sso-identities';
import * as channelDayCounts from './migrations/2026-12-03-1100-channel-day-counts';
import * as quietHours from './migrations/2026-12-03-1200-quiet-hours';
import * as digests from './migrations/2026-12-03-1300-digests';

/**
 * What a migration may need that db/ does not hold: sealing a secret needs the server key, which
 * the caller has (composition, restore, the import).
 */
export interface MigrationHelpers {
  /** The channel config with a proxy URL's credentials sealed (the same object if none). */
  sealProxy?: (config: Record<string, unknown>) => Record<string, unknown>;
}

interface MigrationModule {
  up(params: { context: QueryInterface; helpers: MigrationHelpers }): Promise<void>;
  down(params: { context: QueryInterface }): Promise<void>;
}

/**
 * Migrations are listed here rather than globbed, so they survive bundling into the
 * Electron main process. Names follow `YYYY-MM-DD-HHMM-description`; never edit one that shipped.
 */
const migrations: Array<[string, MigrationModule]> = [
  ['2026-11-22-1200-initial-schema', initialSchema],
  ['2026-11-23-1000-keep-task-id-on-existing-installs', keepTaskIdOn],
  ['2026-11-23-1100-history-index', historyIndex],
  ['2026-11-23-1200-hosted-message-preview-keys', previewKeys],
  ['2026-11-23-1300-schedules', schedules],
  ['2026-11-23-1400-message-nest-import', messageNestImport],
  ['2026-11-23-1600-shared-limits', sharedLimits],
  ['2026-11-25-0800-delivery-lease-token', leaseToken],
  ['2026-11-26-1000-priority-and-dedup', priorityAndDedup],
  ['2026-11-26-1100-template-hook-secret', templateHookSecret],
  ['2026-11-27-1000-users-and-roles', usersAndRoles],
  ['2026-11-27-1100-per-person-reads', perPersonReads],
  ['2026-11-27-1200-audit-log', auditLog],
  ['2026-11-27-1300-two-factor', twoFactor],
  ['2026-11-28-1000-instance-template-code', instanceTemplateCode],
  ['2026-11-28-1100-lighter-hot-path', lighterHotPath],
  ['2026-11-29-1000-hosted-insert-lock', hostedInsertLock],
  ['2026-11-30-1000-seal-proxy-credentials', sealProxyCredentials],
  ['2026-12-01-1000-hosted-public-link', hostedPublicLink],
  ['2026-12-01-1100-send-warnings', sendWarnings],
  ['2026-12-01-1200-audit-names', auditNames],
  ['2026-12-02-1000-web-push', webPush],
  ['2026-12-02-1100-attachments', attachments],
  ['2026-12-02-1200-remote-image-choices', remoteImageChoices],
  ['2026-12-02-1300-hosted-attachments', hostedAttachments],
  ['2026-12-03-1000-sso-identities', ssoIdentities],
  ['2026-12-03-1100-channel-day-counts', channelDayCounts],
  ['2026-12-03-1200-quiet-hours', quietHours],
  ['2026-12-03-1300-digests', digests],
];

/** The names this code knows, in order: a database that lacks one is behind the code. */
export const MIGRATION_NAMES: readonly string[] = migrations.map(([name]) => name);

/**
 * Applies every pending migration; `to` stops after the named one (tests build older folders).
 * `helpers` lends what a migration needs beyond the schema (MigrationHelpers).
 */
export async function migrate(
  sequelize: Sequelize,
  to?: string,
  helpers: MigrationHelpers = {},
): Promise<string[]> {
  await useIncrementalVacuumIfNew(sequelize);
  const storage = new SequelizeStorage({ sequelize, tableName: 'schema_migrations' });
  const umzug = new Umzug<QueryInterface>({
    migrations: migrations.map(([name, mod]) => ({
      name,
      up: ({ context }) => mod.up({ context, helpers }),
      down: ({ context }) => mod.down({ context }),
    })),
    context: sequelize.getQueryInterface(),
    storage,
    logger: undefined,
  });
  // The storage's names, not umzug.executed(): that lists only the migrations this code knows.
  refuseNewerDatabase(await storage.executed());
  const applied = await umzug.up(to === undefined ? {} : { to });
  return applied.map((m) => m.name);
}

/**
 * A database a newer Herald migrated is refused before anything runs: this code would read and
 * write tables whose shape it does not know, and migrations only go forward. The message names
 * the newest migration it lacks, which identifies the Herald needed (one that ships it, or later).
 */
function refuseNewerDatabase(executed: string[]): void {
  const known = new Set(MIGRATION_NAMES);
  const unknown = executed.filter((name) => !known.has(name)).sort();
  if (unknown.length === 0) return;
  const needed = unknown[unknown.length - 1];
  throw new Error(
    `this database was upgraded by a newer Herald: it has migration ${unknown.join(', ')}, ` +
      `which this Herald does not know (its newest is ${MIGRATION_NAMES[MIGRATION_NAMES.length - 1]}). ` +
      `Start the newer Herald again (one that includes migration ${needed}, or later), ` +
      `or restore a backup taken before the upgrade (docs/upgrading.md)`,
  );
}

/**
 * A new database returns the pages retention frees to the file system (`PRAGMA
 * incremental_vacuum` after each prune). auto_vacuum can only change before the first table
 * exists: an existing database keeps its mode and reuses freed pages instead.
 */
async function useIncrementalVacuumIfNew(sequelize: Sequelize): Promise<void> {
  // PostgreSQL's autovacuum returns dead rows' space by itself.
  if (sequelize.getDialect() !== 'sqlite') return;
  const [rows] = await sequelize.query('SELECT count(*) AS n FROM sqlite_master');
  if (Number((rows as Array<{ n: number }>)[0]?.n) === 0) {
    // Journal mode WAL has already written the header: only a VACUUM (instant while the
    // database is empty) applies the new mode.
    await sequelize.query('PRAGMA auto_vacuum = INCREMENTAL');
    await sequelize.query('VACUUM');
  }
}
