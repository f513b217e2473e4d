import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { buildSqliteMessageNest, SEALED_SECRETS } from './mn-fixture';
import { heraldArgs } from '../../helpers/herald-bin';
import { runNodeToExit, type ProcessResult } from '../../helpers/run-to-exit';

/* eslint-disable @typescript-eslint/no-explicit-any -- console answers are loose JSON */

const ROOT = join(import.meta.dirname, '..', '..', '..');

/**
 * Runs `npm run import:message-nest -- …` (`herald import-message-nest …` from the sources) as
 * its own process, as a user would. test/integration/start/production-start.test.ts runs the
 * built bundle's.
 */
function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ProcessResult> {
  return runNodeToExit(heraldArgs(['import-message-nest', ...args]), {
    cwd: ROOT,
    env: { ...process.env, HERALD_SECRET_KEY: '', HERALD_SECRET_KEY_FILE: '', ...env },
  });
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Every file of a folder with its hash: what "nothing changed" means for a data folder. */
function folderState(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir).map((name) => [name, sha(join(dir, name))]));
}

/** The counts row of one kind in the printed table: [created, already imported, skipped]. */
function countsOf(stdout: string, label: string): number[] {
  const line = stdout.split('\n').find((l) => l.startsWith(label));
  if (!line) throw new Error(`no "${label}" row in:\n${stdout}`);
  return line.slice(label.length).trim().split(/\s+/).map(Number);
}

// In order, as a user would run it: a dry run, the import, then the same command again.
// The CLI imports into a data folder's SQLite file (on PostgreSQL: Settings → Import, which
// console-import.test.ts covers, or the CLI and then `npm run migrate:to-postgres`), so the
// PostgreSQL pass of the suite leaves this file out.
describe.skipIf(onPostgres())(
  'npm run import:message-nest (SQLite file)',
  { shuffle: false },
  () => {
    let work: string;
    let mnFile: string;
    let mnHash: string;
    let dataDir: string;

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'mn-cli-'));
      mnFile = join(work, 'database.db');
      await buildSqliteMessageNest(mnFile);
      mnHash = sha(mnFile);
      // A data folder Herald already used: the import adds to it.
      const herald = await startTestHerald();
      dataDir = herald.dataDir;
      await herald.createTask('Deploy alerts', []);
      await herald.close();
    });

    afterAll(() => {
      rmSync(work, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('a dry run prints what would be created and leaves the data folder byte for byte as it was', async () => {
      const before = folderState(dataDir);
      const r = await runCli([mnFile, '--dry-run', '--data-dir', dataDir]);
      expect(r.stderr).not.toMatch(/Import failed/);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Dry run \(nothing was changed\)/);
      expect(r.stdout).toMatch(/Would create/);
      expect(countsOf(r.stdout, 'Channels')).toEqual([14, 0, 1]);
      expect(countsOf(r.stdout, 'Tasks')).toEqual([3, 0, 0]);
      expect(r.stdout).toMatch(/Would set sendApi\.httpStatus to "always200"/);
      expect(folderState(dataDir)).toEqual(before);
      expect(sha(mnFile)).toBe(mnHash);
    });

    it('imports channels, tasks, templates, instances and hosted messages, sealing every secret', async () => {
      const r = await runCli([mnFile, '--data-dir', dataDir, '--with-logs']);
      expect(r.stderr).not.toMatch(/Import failed/);
      expect(r.code).toBe(0);
      expect(countsOf(r.stdout, 'Channels')).toEqual([14, 0, 1]);
      expect(countsOf(r.stdout, 'Tasks')).toEqual([3, 0, 0]);
      expect(countsOf(r.stdout, 'Templates')).toEqual([2, 0, 0]);
      expect(countsOf(r.stdout, 'Instances')).toEqual([9, 0, 1]);
      expect(countsOf(r.stdout, 'Scheduled messages')).toEqual([1, 0, 1]);
      expect(countsOf(r.stdout, 'Hosted messages')).toEqual([2, 0, 0]);
      expect(countsOf(r.stdout, 'Send logs')).toEqual([2, 0, 0]);
      // Progress on stderr: every source table's rows done of its total, then a closing line.
      expect(r.stderr.split('\n').filter((l) => l.includes(' rows ('))).toEqual([
        '  message_send_ways: 15 / 15 rows (100 %)',
        '  message_send_tasks: 3 / 3 rows (100 %)',
        '  message_template: 2 / 2 rows (100 %)',
        '  message_send_tasks_ins: 10 / 10 rows (100 %)',
        '  message_cron_messages: 2 / 2 rows (100 %)',
        '  message_hosted_message: 2 / 2 rows (100 %)',
        '  message_send_tasks_logs: 2 / 2 rows (100 %)',
        '  done, 7 tables: 36 / 36 rows (100 %)',
      ]);
      expect(r.stdout).not.toMatch(/rows \(\d+ %\)/);
      // Each kind Herald lacks is named with its reason.
      // Each skipped row: Message Nest's table, the row's id and name, and the reason.
      expect(r.stdout).toMatch(
        /\n {2}- message_send_ways WYbarkenc001 "Bark encrypted": Bark: it encrypts pushes/,
      );
      expect(r.stdout).toMatch(
        /\n {2}- message_send_tasks_ins INorphan0001 "task TKdeleted001": its task TKdeleted001 no longer exists/,
      );
      expect(r.stdout).toMatch(/CM0000000002 "Orphan schedule": .*TKdeleted001/);
      expect(r.stdout).toMatch(/INorphan0001 .*its task TKdeleted001 no longer exists/);
      expect(r.stdout).toMatch(/Set sendApi\.httpStatus to "always200"/);
      expect(r.stdout).toMatch(/admin account is not imported/);
      expect(sha(mnFile)).toBe(mnHash);

      // No secret (and not Message Nest's admin password) is anywhere in the data folder in clear.
      for (const name of readdirSync(dataDir)) {
        const bytes = readFileSync(join(dataDir, name)).toString('latin1');
        for (const secret of [...SEALED_SECRETS, 'mn-admin-plaintext-pw']) {
          expect(bytes.includes(secret), `${secret} in ${name}`).toBe(false);
        }
      }

      const herald = await startTestHerald({ dataDir });
      try {
        const c = herald.console;
        // The import is in the audit log, by the command line.
        const [audited] = (await c.ok('GET', '/audit?action=import.message-nest')).items;
        expect(audited).toMatchObject({
          userId: null,
          username: 'cli',
          targetName: 'Message Nest',
        });
        expect(audited.changes).toContainEqual({ field: 'created.tasks', before: null, after: 3 });
        // The cron message became a schedule of the imported task, due at its next 02:00.
        const schedules: any[] = (await c.ok('GET', '/schedules')).items;
        expect(schedules).toHaveLength(1);
        expect(schedules[0]).toMatchObject({
          name: 'Nightly report',
          cron: '0 2 * * *',
          title: 'Nightly',
          text: 'all good',
          enabled: true,
          catchUp: 'skip',
        });
        expect(new Date(schedules[0].nextRunAt).getTime()).toBeGreaterThan(Date.now());
        const channels: any[] = (await c.ok('GET', '/channels')).items;
        expect(channels.map((ch) => ch.type).sort()).toEqual(
          [
            'bark',
            'dingtalk',
            'email',
            'feishu',
            'gotify',
            'hosted',
            'ntfy',
            'telegram',
            'webhook',
            'wechat_official',
            'wecom',
            'wecom_app',
            'aliyun_sms',
            'pushme',
          ].sort(),
        );
        const mail = channels.find((ch) => ch.type === 'email');
        expect(mail.config).toMatchObject({
          host: '127.0.0.1',
          port: 2525,
          secure: 'starttls',
          username: 'bot@example.com',
          password: '******',
          from: 'bot@example.com',
          fromName: 'Nest Bot',
        });
        const hook = channels.find((ch) => ch.type === 'webhook');
        expect(hook.config.body).toBe('{"msg":"{{content}}"}');
        expect(hook.config.secretHeaders).toEqual({ Authorization: '******' });
        expect(channels.find((ch) => ch.type === 'bark').config).toMatchObject({
          serverUrl: 'https://bark.example.com',
          group: 'alerts',
        });

        const tasks: any = await c.ok('GET', '/tasks');
        const names = tasks.items.map((t: any) => t.name).sort();
        // "Deploy alerts" was taken by the task Herald already had.
        expect(names).toEqual([
          'Deploy alerts',
          'Deploy alerts (TK1234567890)',
          'Hosted only',
          'Old style',
        ]);
        const deploy = tasks.items.find((t: any) => t.legacyId === 'TK1234567890');
        expect(deploy).toMatchObject({
          acceptLegacyToken: false,
          legacyToken: '71627e0501010505090905050b',
        });
        const detail = await c.ok('GET', `/tasks/${deploy.id}`);
        expect(
          detail.instances.map((i: any) => [i.channel.type, i.contentType, i.enabled, i.recipient]),
        ).toEqual([
          ['dingtalk', 'markdown', true, ''],
          ['email', 'html', true, 'ops@example.com'],
          ['wecom_app', 'text', true, 'zhangsan'],
          ['telegram', 'markdown', false, ''],
        ]);
        // Message Nest answered every hosted send with hostMessageUrl: imported hosted
        // instances keep answering it, the other kinds have no such setting.
        const hostedOnly = tasks.items.find((t: any) => t.name === 'Hosted only');
        const hostedDetail = await c.ok('GET', `/tasks/${hostedOnly.id}`);
        expect(hostedDetail.instances.map((i: any) => [i.channel.type, i.publicLink])).toEqual([
          ['hosted', true],
        ]);
        expect(detail.instances.every((i: any) => i.publicLink === false)).toBe(true);
        const old = tasks.items.find((t: any) => t.legacyId === 'T-oldstyle1');
        const oldDetail = await c.ok('GET', `/tasks/${old.id}`);
        expect(oldDetail.instances[0]).toMatchObject({ dynamicRecipients: true, recipient: '' });

        const templates: any = await c.ok('GET', '/templates');
        const welcome = templates.items.find((t: any) => t.name === 'Welcome');
        expect(welcome).toMatchObject({
          enabled: true,
          text: 'Hi {{username}} from {{服务名}}',
          html: null,
          markdown: '**Hi** {{username}} from {{服务名}}',
          atMobiles: '13800000000,13900000000',
          atAll: true,
          placeholders: [
            { key: 'username', label: 'User', default: 'Bob' },
            { key: '服务名', label: '服务名' },
          ],
          instanceCount: 3,
        });
        expect(templates.items.find((t: any) => t.name === 'Paused template').enabled).toBe(false);

        const messages: any = await c.ok('GET', '/messages');
        expect(messages.items.map((m: any) => m.title).sort()).toEqual(['First', 'Second']);
        // Imported messages arrive read for every person, and so does the count.
        expect((await c.ok('GET', '/messages/unread-count')).count).toBe(0);
        expect(await herald.server.unreadCount((await c.ok('GET', '/me')).user.id)).toBe(0);

        const settings = await c.ok('GET', '/settings');
        expect(settings.sendApi).toEqual({ httpStatus: 'always200' });
      } finally {
        await herald.close();
      }
    });

    it('a second run creates nothing twice', async () => {
      const r = await runCli([mnFile, '--data-dir', dataDir, '--with-logs']);
      expect(r.code).toBe(0);
      expect(countsOf(r.stdout, 'Channels')).toEqual([0, 14, 1]);
      expect(countsOf(r.stdout, 'Tasks')).toEqual([0, 3, 0]);
      expect(countsOf(r.stdout, 'Templates')).toEqual([0, 2, 0]);
      expect(countsOf(r.stdout, 'Instances')).toEqual([0, 9, 1]);
      expect(countsOf(r.stdout, 'Hosted messages')).toEqual([0, 2, 0]);
      expect(countsOf(r.stdout, 'Send logs')).toEqual([0, 2, 0]);
      expect(sha(mnFile)).toBe(mnHash);
    });

    it('refuses while Herald runs on the data folder', async () => {
      const herald = await startTestHerald({ dataDir, setup: false });
      try {
        const r = await runCli([mnFile, '--data-dir', dataDir]);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/Herald is running on .* import from its console/);
      } finally {
        await herald.close();
      }
    });

    it('refuses bad sources with a clear message and changes nothing', async () => {
      const fresh = join(work, 'untouched-data');
      const notDb = join(work, 'notes.txt');
      writeFileSync(notDb, 'just some text, not a database at all');
      const other = join(work, 'other.db');
      await buildSqliteMessageNest(other, { prefix: 'x_', rows: {}, ddl: (d) => d.slice(0, 1) });
      const newer = join(work, 'newer.db');
      await buildSqliteMessageNest(newer, {
        ddl: (d) =>
          d.map((s) =>
            s.replace('`auth` varchar(2048)', '`auth` varchar(2048),`owner_id` integer'),
          ),
      });
      const cases: Array<[string, RegExp]> = [
        [notDb, /is not a SQLite database/],
        [join(work, 'missing.db'), /no such file/],
        [other, /is not a Message Nest database: it has no table ending in "send_ways"/],
        [newer, /unknown Message Nest schema: table message_send_ways has column owner_id/],
        [
          'mysql://root@127.0.0.1:1/message_nest',
          /cannot read the MySQL database at mysql:\/\/root@127\.0\.0\.1:1\/message_nest/,
        ],
        ['postgres://postgres@127.0.0.1:1/message_nest', /cannot read the PostgreSQL database at/],
        ['ftp://example.com/db', /ftp:\/\/ is not a source the importer reads/],
      ];
      for (const [source, message] of cases) {
        const r = await runCli([source, '--data-dir', fresh]);
        expect(r.code, source).toBe(1);
        expect(r.stderr, source).toMatch(message);
        expect(r.stderr, source).toMatch(/Nothing was imported/);
      }
      expect(existsSync(fresh)).toBe(false);
    }, 240_000);
  },
);

// The console import runs inside a Herald whose start checked its key against the database's
// fingerprint; the command line checks the same before it writes anything.
describe.skipIf(onPostgres())('npm run import:message-nest checks the server key', () => {
  let work: string;
  let mnFile: string;
  let dataDir: string;
  let keyFile: string;
  let originalKey: Buffer;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mn-cli-key-'));
    mnFile = join(work, 'database.db');
    await buildSqliteMessageNest(mnFile);
    // A data folder Herald used: its database holds the fingerprint of its secret.key.
    const herald = await startTestHerald();
    dataDir = herald.dataDir;
    await herald.close();
    keyFile = join(dataDir, 'secret.key');
    originalKey = readFileSync(keyFile);
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  const otherKey = () => `${randomBytes(32).toString('base64')}\n`;

  it('refuses another key, from the folder or HERALD_SECRET_KEY, changing nothing', async () => {
    writeFileSync(keyFile, otherKey());
    try {
      const before = folderState(dataDir);
      for (const args of [[], ['--dry-run']]) {
        const r = await runCli([mnFile, '--data-dir', dataDir, ...args]);
        expect(r.code, args.join()).toBe(1);
        expect(r.stderr).toMatch(
          /^Import failed: The server key from .*secret\.key does not match the key this database's tokens and secrets were sealed with/m,
        );
        expect(r.stderr).toMatch(
          /put the original secret\.key back in the data folder\.\nNothing was imported\./,
        );
        expect(r.stderr).not.toMatch(/Herald did not start/);
        expect(r.stdout).toBe('');
      }
      expect(folderState(dataDir)).toEqual(before);
    } finally {
      writeFileSync(keyFile, originalKey);
    }
    const fromEnv = await runCli([mnFile, '--data-dir', dataDir], {
      HERALD_SECRET_KEY: 'a passphrase this database was never sealed with',
    });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toMatch(/The server key from HERALD_SECRET_KEY does not match/);
  }, 120_000);

  it('refuses a folder whose key is gone rather than making a new one', async () => {
    rmSync(keyFile);
    try {
      const before = folderState(dataDir);
      const r = await runCli([mnFile, '--data-dir', dataDir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /secret\.key is missing, but this database's tokens and secrets were sealed with a key/,
      );
      expect(folderState(dataDir)).toEqual(before);
      expect(existsSync(keyFile)).toBe(false);
    } finally {
      writeFileSync(keyFile, originalKey);
    }
  }, 60_000);

  it('imports with the database’s own key', async () => {
    const r = await runCli([mnFile, '--data-dir', dataDir]);
    expect(r.stderr).not.toMatch(/Import failed/);
    expect(r.code).toBe(0);
    expect(countsOf(r.stdout, 'Channels')).toEqual([14, 0, 1]);
  }, 60_000);
});
