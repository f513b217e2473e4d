import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readMeta } from '../../../server/features/backup/backup-format';
import { restoreBackup } from '../../../server/features/backup/restore';
import { startHttpPeer, type HttpPeer, type ReceivedRequest } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { runBin } from './run-bin';

/** The receiver's check (docs/security.md): only the signing secret opens it. */
function signedWith(secret: string, req: ReceivedRequest): boolean {
  const id = String(req.headers['webhook-id']);
  const timestamp = String(req.headers['webhook-timestamp']);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${id}.${timestamp}.${req.body}`)
    .digest('base64');
  return String(req.headers['webhook-signature'])
    .split(' ')
    .some((entry) => entry === `v1,${expected}`);
}

// A backup of a data folder's SQLite file: the PostgreSQL pass has none (backup-refusals
// covers its refusal).
describe.skipIf(onPostgres())(
  'a backup taken under send load restores into a working Herald',
  () => {
    let herald: TestHerald;
    let restored: TestHerald | undefined;
    let peer: HttpPeer;
    let scratch: string;
    const secret = `whsec_${randomBytes(32).toString('base64')}`;

    beforeAll(async () => {
      herald = await startTestHerald();
      peer = await startHttpPeer();
      scratch = mkdtempSync(join(tmpdir(), 'herald-backup-load-'));
    });
    afterAll(async () => {
      await restored?.close(true);
      await herald.close(true);
      await peer.close();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('sends keep being accepted while `npm run backup` copies, and the copy is consistent', async () => {
      const channel = await herald.createChannel('webhook', {
        url: peer.url,
        signingSecret: secret,
      });
      const { token } = await herald.createTemplate(
        { text: 'load {{n}}', placeholders: [{ key: 'n', label: 'N' }] },
        [{ channelId: channel.id, contentType: 'text' }],
      );

      // Eight senders, each sending one after another until the backup is done.
      let backupDone = false;
      let accepted = 0;
      let acceptedDuringBackup = 0;
      const sender = async (worker: number) => {
        for (let n = 0; !backupDone || n < 5; n++) {
          const r = await herald.sendV2({
            token,
            title: `w${worker}`,
            placeholders: { n: String(n) },
          });
          expect(r.body.code).toBe(200);
          accepted += 1;
          if (!backupDone) acceptedDuringBackup += 1;
        }
      };
      const senders = Array.from({ length: 8 }, (_, i) => sender(i));
      // Let the load build up before the copy starts.
      await herald.waitFor(() => accepted >= 40, 20_000);
      const file = join(scratch, 'under-load.herald-backup');
      const result = await runBin(['backup', '--out', file, '--data-dir', herald.dataDir]);
      backupDone = true;
      await Promise.all(senders);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('with the server key');
      expect(acceptedDuringBackup).toBeGreaterThan(40);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      // A consistent snapshot: every send it holds has its delivery, and it holds fewer sends
      // than were accepted in all (the ones after the copy are not in it).
      const db = new BetterSqlite3(file, { readonly: true });
      try {
        const meta = readMeta(db)!;
        expect(meta.key).not.toBeNull();
        const sends = (db.prepare('SELECT count(*) AS n FROM sends').get() as { n: number }).n;
        const orphans = (
          db
            .prepare(
              'SELECT count(*) AS n FROM sends s WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.send_id = s.id)',
            )
            .get() as { n: number }
        ).n;
        expect(sends).toBeGreaterThanOrEqual(40);
        expect(sends).toBeLessThan(accepted);
        expect(orphans).toBe(0);
      } finally {
        db.close();
      }

      // Restored into a fresh folder, Herald starts there, signs in with the same administrator,
      // and the restored channel's sealed signing secret opens: the receiver verifies it.
      const fresh = join(scratch, 'fresh', 'data');
      const done = await restoreBackup({ file, dataDir: fresh, env: {} });
      expect(done.keyFrom).toBe('backup');
      expect(done.keptAside).toBeNull();
      restored = await startTestHerald({ dataDir: fresh });
      const channels = await restored.console.ok('GET', '/channels');
      expect(JSON.stringify(channels)).toContain(String(channel.name));
      const before = peer.received.length;
      const sent = await restored.sendV2({
        token,
        title: 'after restore',
        placeholders: { n: 'r' },
      });
      expect(sent.body.code).toBe(200);
      // Deliveries the copy caught pending go out from the restored Herald too: find this one.
      const delivered = await restored.waitFor(
        () => peer.received.slice(before).find((r) => r.body.includes('load r')),
        20_000,
      );
      expect(signedWith(secret, delivered)).toBe(true);
      expect(signedWith(`whsec_${randomBytes(32).toString('base64')}`, delivered)).toBe(false);
    }, 120_000);
  },
);
