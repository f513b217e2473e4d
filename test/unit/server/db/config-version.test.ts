import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import {
  configVersion,
  onConfigChange,
  registerConfigVersionHooks,
} from '../../../../server/db/config-version';
import { openDatabase, type Database } from '../../../../server/db/database';
import { migrate } from '../../../../server/db/migrate';
import { Channel, initModels } from '../../../../server/db/models';

describe('the configuration version', () => {
  const dirs: string[] = [];
  const dbs: Database[] = [];
  afterEach(async () => {
    for (const db of dbs.splice(0)) await db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const openModels = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-config-version-'));
    dirs.push(dir);
    const db = await openDatabase(join(dir, 'c.db'), { writeWorker: 'off' });
    dbs.push(db);
    initModels(db.sequelize);
    registerConfigVersionHooks();
    await migrate(db.sequelize);
    return db;
  };

  it('moves with a channel written on a second database opened in the same process, once per write', async () => {
    // Model.init() drops a model's hooks: the second database's models must be hooked again.
    await openModels();
    const db = await openModels();
    registerConfigVersionHooks(); // twice on the same models: still one hook each
    const calls: number[] = [];
    const stop = onConfigChange(() => calls.push(configVersion()));
    try {
      const before = configVersion();
      await db.writer.run(() => Channel.create({ name: 'c', type: 'webhook', config: {} }));
      expect(configVersion()).toBeGreaterThan(before);
      // One hook fires for a create; hooked twice, it would fire twice.
      expect(calls).toHaveLength(1);
    } finally {
      stop();
    }
  });
});
