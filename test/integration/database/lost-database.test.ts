import pg, { type Client } from 'pg';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { POSTGRES_ADMIN_URL } from '../../helpers/test-database';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/**
 * PostgreSQL lost while Herald runs: the send APIs answer 503 (nothing half-accepted) while it
 * is away, and Herald reconnects by itself when it is back. "Away" is real: the test database
 * refuses new connections and every connection Herald holds is terminated by the server.
 */
describe('losing the PostgreSQL database at run time', () => {
  let herald: TestHerald;
  let admin: Client;
  let database: string;
  let token: string;

  beforeAll(async () => {
    herald = await startTestHerald({ postgres: true });
    const [row] = await herald.server.ctx.sequelize.query<{ db: string }>(
      'SELECT current_database() AS db',
      { type: QueryTypes.SELECT },
    );
    database = row.db;
    admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    const inbox = await herald.createChannel('hosted', {}, 'inbox');
    ({ token } = await herald.createTemplate({ text: 'lost and found' }, [
      { channelId: inbox.id, contentType: 'text' },
    ]));
  });
  afterAll(async () => {
    await admin.query(`ALTER DATABASE "${database}" WITH ALLOW_CONNECTIONS true`);
    await admin.end();
    await herald.close(true);
  });

  const cutOff = async (allow: boolean) => {
    await admin.query(`ALTER DATABASE "${database}" WITH ALLOW_CONNECTIONS ${allow}`);
    if (!allow) {
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
    }
  };
  const titled = async (title: string) =>
    (await herald.console.ok('GET', `/logs?q=${encodeURIComponent(title)}`)).items.filter(
      (s: any) => s.title === title,
    ).length;

  it('answers 503 while the database is away, then reconnects; every send answered 200 is stored once', async () => {
    expect((await herald.sendV2({ token, title: 'before the loss' })).status).toBe(200);

    await cutOff(false);
    const during: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await herald.sendV2({ token, title: `while away ${i}` });
      during.push(r.status);
      if (r.status !== 200) {
        expect({ status: r.status, body: r.body }).toMatchObject({ status: 503 });
        expect(r.body.code).toBe(503);
        expect(r.headers.get('retry-after')).toBe('5');
      }
    }
    // Nothing can be written while the server refuses connections.
    expect(during).toEqual([503, 503, 503, 503, 503]);
    const ready = await fetch(`${herald.url}/readyz`);
    expect(ready.status).toBe(503);

    await cutOff(true);
    const back = await herald.waitFor(async () => {
      const r = await herald.sendV2({ token, title: 'after the return' });
      return r.status === 200 ? r : undefined;
    });
    expect(back.body.code).toBe(200);
    expect(await titled('before the loss')).toBe(1);
    expect(await titled('after the return')).toBe(1);
    for (let i = 0; i < 5; i++) expect(await titled(`while away ${i}`)).toBe(0);
  });
});
