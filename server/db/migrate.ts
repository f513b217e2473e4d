import type { QueryInterface, Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';

import * as initialSchema from './migrations/2026-11-22-1200-initial-schema';
import * as keepTaskIdOn from './migrations/2026-12-01-1200-keep-task-id-on-existing-installs';
import * as messageNestImport from './migrations/2026-12-20-1200-message-nest-import';

interface MigrationModule {
  up(params: { context: QueryInterface }): Promise<void>;
  down(params: { context: QueryInterface }): Promise<void>;
}

/**
 * Migrations are listed here rather than globbed, so they survive bundling into the
 * Electron main process. Names follow `YYYY-MM-DD-HHMM-description`; never edit one that shipped.
 */
const migrations: Array<[string, MigrationModule]> = [
  ['2026-11-22-1200-initial-schema', initialSchema],
  ['2026-12-01-1200-keep-task-id-on-existing-installs', keepTaskIdOn],
  ['2026-12-20-1200-message-nest-import', messageNestImport],
];

/** Applies every pending migration; `to` stops after the named one (tests build older folders). */
export async function migrate(sequelize: Sequelize, to?: string): Promise<string[]> {
  const umzug = new Umzug<QueryInterface>({
    migrations: migrations.map(([name, mod]) => ({
      name,
      up: ({ context }) => mod.up({ context }),
      down: ({ context }) => mod.down({ context }),
    })),
    context: sequelize.getQueryInterface(),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
  const applied = await umzug.up(to === undefined ? {} : { to });
  return applied.map((m) => m.name);
}
