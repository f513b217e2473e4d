import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { migrate } from '../../../server/db/migrate';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { openFolderDatabase } from '../../helpers/test-database';

const FIRST_RELEASE = '2026-11-22-1200-initial-schema';

/**
 * task_id is off on new installs. A data folder the previous version created (when it was on by
 * default, and usually never stored) keeps accepting it after the upgrade.
 */
describe('task_id across the upgrade', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  /** A data folder as the previous version left it: its schema, and whatever rows it held. */
  async function previousVersionFolder(rows: string[]): Promise<string> {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-upgrade-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const db = await openFolderDatabase(dataDir);
    try {
      await migrate(db.sequelize, FIRST_RELEASE);
      for (const sql of rows) await db.sequelize.query(sql);
    } finally {
      await db.close();
    }
    return dataDir;
  }

  async function start(dataDir: string): Promise<{ herald: TestHerald; peer: HttpPeer }> {
    const herald = await startTestHerald({ dataDir });
    const peer = await startHttpPeer();
    cleanup.push(async () => {
      await herald.close();
      await peer.close();
    });
    return { herald, peer };
  }

  const now = "'2026-11-30 10:00:00.000 +00:00'";
  const insertTask = `INSERT INTO tasks (id, name, token_generation, created_at, updated_at)
    VALUES (1, 'nightly backup', 0, ${now}, ${now})`;

  it('a folder with a task from the previous version still accepts task_id', async () => {
    const { herald, peer } = await start(await previousVersionFolder([insertTask]));
    expect((await herald.console.ok('GET', '/settings')).allowTaskId).toBe(true);
    const channel = await herald.createChannel('webhook', { url: `${peer.url}/upgraded` });
    await herald.console.ok('POST', '/tasks/1/instances', {
      channelId: channel.id,
      contentType: 'text',
    });
    const res = await herald.sendV1({ task_id: '1', title: 'after upgrade', text: 'still here' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('sent');
    expect(peer.received).toHaveLength(1);
    expect(peer.received[0].body).toContain('after upgrade');
  });

  it('an administrator who turned task_id off before the upgrade keeps it off', async () => {
    const stored = JSON.stringify({ allowTaskId: false, v1WaitMs: 15000 });
    const { herald } = await start(
      await previousVersionFolder([
        insertTask,
        `INSERT INTO settings (key, value) VALUES ('settings', '${stored}')`,
      ]),
    );
    expect((await herald.console.ok('GET', '/settings')).allowTaskId).toBe(false);
    const res = await herald.sendV1({ task_id: '1', title: 'refused', text: 'x' });
    expect(res.status).toBe(401);
  });

  it('stored settings without allowTaskId get the old default written in', async () => {
    const stored = JSON.stringify({ rateLimitPerMinute: 30 });
    const { herald } = await start(
      await previousVersionFolder([
        `INSERT INTO settings (key, value) VALUES ('settings', '${stored}')`,
      ]),
    );
    const settings = await herald.console.ok('GET', '/settings');
    expect(settings.allowTaskId).toBe(true);
    expect(settings.rateLimitPerMinute).toBe(30);
  });

  it('an empty folder of the previous version, and a new one, start with task_id off', async () => {
    for (const dataDir of [
      await previousVersionFolder([]),
      mkdtempSync(join(tmpdir(), 'herald-fresh-')),
    ]) {
      cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
      const { herald } = await start(dataDir);
      const { task } = await herald.createTask('fresh', []);
      expect((await herald.console.ok('GET', '/settings')).allowTaskId).toBe(false);
      const res = await herald.sendV1({ task_id: String(task.id), title: 'fresh', text: 'x' });
      expect(res.status).toBe(401);
      expect(res.body.msg).toMatch(/^task_id is turned off in settings/);
    }
  });
});
