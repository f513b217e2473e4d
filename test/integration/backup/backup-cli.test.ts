import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { runBin } from './run-bin';

// `npm run backup` and `npm run restore` as a user runs them: their own processes, exit codes,
// stdout and stderr. On PostgreSQL they refuse (restore-refusals.test.ts).
describe.skipIf(onPostgres())(
  'herald backup and herald restore (processes)',
  { shuffle: false },
  () => {
    let scratch: string;
    let dataDir: string;

    beforeAll(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'herald-backup-cli-'));
      dataDir = join(scratch, 'data');
      const herald = await startTestHerald({ dataDir });
      await herald.close();
    });
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    it('--help prints each command’s usage; a missing --out is a usage error', async () => {
      const backup = await runBin(['backup', '--help']);
      expect(backup.code).toBe(0);
      expect(backup.stdout).toContain('Usage: herald backup --out FILE');
      const restore = await runBin(['restore', '--help']);
      expect(restore.code).toBe(0);
      expect(restore.stdout).toContain('Usage: herald restore FILE');
      const bad = await runBin(['backup', '--data-dir', dataDir]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('give --out FILE');
      const top = await runBin(['--help']);
      expect(top.stdout).toMatch(/backup .*\n.*restore /);
    });

    it('backs up, restores into a new folder, then refuses the same folder without --force', async () => {
      const file = join(scratch, 'cli.herald-backup');
      const made = await runBin(['backup', '--out', file, '--data-dir', dataDir, '--without-key']);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toContain('without the server key');
      expect(statSync(file).mode & 0o777).toBe(0o600);

      const target = join(scratch, 'restored');
      const key = `base64:${readFileSync(join(dataDir, 'secret.key'), 'utf8').trim()}`;
      const missing = await runBin(['restore', file, '--data-dir', target]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('set HERALD_SECRET_KEY');
      expect(existsSync(target)).toBe(false);

      const done = await runBin(['restore', file, '--data-dir', target], {
        HERALD_SECRET_KEY: key,
      });
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toContain(`Restored ${file} into ${target}`);
      expect(done.stdout).toContain('same HERALD_SECRET_KEY');
      expect(readdirSync(target)).toEqual(['herald.db']);

      const again = await runBin(['restore', file, '--data-dir', target], {
        HERALD_SECRET_KEY: key,
      });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('already holds data');

      const pg = await runBin(['backup', '--out', file], {
        HERALD_DATABASE_URL: 'postgres://herald@127.0.0.1:5432/herald',
      });
      expect(pg.code).toBe(1);
      expect(pg.stderr).toContain('pg_dump --format=custom');
    }, 60_000);

    it('makes the folders --out names that do not exist yet, owner-only', async () => {
      const folder = join(scratch, 'backups');
      const file = join(folder, 'nightly', 'now.herald-backup');
      expect(existsSync(folder)).toBe(false);
      const made = await runBin(['backup', '--out', file, '--data-dir', dataDir]);
      expect(made.code, made.stderr).toBe(0);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      if (process.platform !== 'win32') {
        expect(statSync(folder).mode & 0o777).toBe(0o700);
        expect(statSync(join(folder, 'nightly')).mode & 0o777).toBe(0o700);
      }
      expect(readdirSync(join(folder, 'nightly'))).toEqual(['now.herald-backup']);
    }, 60_000);
  },
);
