import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN, ConsoleClient } from '../../helpers/herald';
import { freePort, startHeraldProcess, type HeraldProcess } from '../../helpers/herald-process';
import { onPostgres, POSTGRES_ADMIN_URL } from '../../helpers/test-database';
import { buildSqliteMessageNest } from '../message-nest/mn-fixture';
import {
  commandsOf,
  isRunnableBlock,
  markedExample,
  REPO_ROOT,
  scanDoc,
  scanDocs,
  whereIs,
  type DocBlock,
} from './doc-example-blocks';
import { asTyped, readerEnv, runShell, startExample, type RunningExample } from './example-shell';

/* eslint-disable @typescript-eslint/no-explicit-any -- console answers are loose JSON */

/**
 * Every example in README.md and docs/*.md that a reader pastes into a shell is marked
 * (doc-example-blocks.ts) and either run here, as written, against a real headless Herald (the
 * built bin, in processes of its own), or listed below with the reason it cannot run here.
 * docs/testing.md, "The docs' examples", says how to add one.
 */

/** Blocks marked `doc-example-skip`, with why they cannot run in the test suite. */
const SKIPPED: Record<string, string> = {
  'install-and-test':
    'npm ci replaces the node_modules the suite runs from, and npm test is the suite itself',
  'desktop-install':
    'npm install and npm run build rewrite the checkout the suite runs from (its global setup builds the console and the bundle)',
  'desktop-start':
    "npm start serves port 8765 from the checkout's ./data until stopped; test/integration/start/npm-stop.test.ts and headless-start.test.ts run it on a port and folder of their own",
  'desktop-deb':
    'needs root, apt and a .deb that npm run dist builds with Electron from the internet',
  'desktop-appimage':
    'needs an AppImage built by npm run dist (Electron from the internet), root for apt and a display',
  'desktop-appimage-apparmor': 'needs root and AppArmor to load a profile',
  'desktop-fedora':
    'needs Fedora (dnf, root) and an AppImage built with Electron from the internet',
  'desktop-dist': 'electron-builder downloads Electron and its packaging tools from the internet',
  'postgres-create-database':
    "runs as the server's postgres superuser and --pwprompt asks for a password at a terminal; the PostgreSQL examples here use a database of their own on the test server",
  'docker-compose':
    'needs a Docker daemon and the base image; npm run docker:check runs it, test/integration/packaging/docker-image.test.ts checks the image without Docker',
  'docker-backup':
    'runs inside the Compose container (Docker); backup-restore runs the same command',
  'systemd-user-and-key':
    'creates a system user and folders under /var/lib and /etc with sudo; the key command is openssl rand, as in metrics-start',
  'team-postgres-database':
    "runs as the server's postgres superuser and --pwprompt asks for a password at a terminal",
  'upgrading-backup':
    'its last command runs in the Compose container (Docker); backup-restore runs the npm run backup line, and the herald backup line is the same command',
  'upgrading-checkout':
    'git pull, npm ci and npm run build replace the checkout and node_modules the suite runs from',
  'upgrading-docker': 'needs a Docker daemon to tag, build and run the image',
  fuzz: 'npm run fuzz takes minutes to hours; test/integration/security/fuzz.test.ts runs its short pass',
};

/** Blocks marked `doc-example` that another test runs, with its file (it must name them). */
const RUN_ELSEWHERE: Record<string, string> = {
  walkthrough: 'test/integration/docs/readme-examples.test.ts',
  'priority-and-dedup': 'test/integration/docs/readme-examples.test.ts',
};

/** Blocks marked `doc-example` that this file runs. */
const RUN_HERE = [
  'herald-send',
  'send-with-files',
  'hook-generic',
  'hook-bearer',
  'health-probes',
  'admin-reset-password',
  'backup-restore',
  'metrics-start',
  'import-message-nest',
  'migrate-to-postgres',
  'pg-dump',
  'pg-restore',
  'upgrading-pg-dump',
];

const scan = scanDocs();

/** The block of an example this file runs. */
function example(name: string): DocBlock {
  if (!RUN_HERE.includes(name)) throw new Error(`"${name}" is not in RUN_HERE`);
  return markedExample(scan, name);
}

describe('the marker check itself, on a made-up doc', () => {
  const fence = '```';
  const doc = [
    '# A doc',
    '',
    '<!-- doc-example: first -->',
    '',
    `${fence}sh`,
    'curl -s http://127.0.0.1:8765/healthz',
    fence,
    '',
    `${fence}bash`,
    'echo unmarked',
    fence,
    '',
    `${fence}json`,
    '{"a": 1}',
    fence,
    '',
    fence,
    '$ herald backup --out x \\',
    '    --data-dir d',
    'Backed up.',
    '$ herald restore x',
    fence,
    '',
    fence,
    'server/ → lib/',
    fence,
    '',
    '- a list item:',
    '',
    '  <!-- doc-example-skip: in-a-list -->',
    '',
    `  ${fence}sh`,
    '  docker compose up -d',
    `  ${fence}`,
    '',
    '<!-- doc-example: orphan -->',
    'Prose, not a block.',
    '',
    '<!-- readme-example: old -->',
    '<!-- doc-example walkthrough -->',
    'Prose may quote `<!-- doc-example: NAME -->` freely.',
    '<!-- doc-example: at-the-end -->',
  ].join('\n');
  const scanned = scanDoc('made-up.md', doc);
  const runnable = scanned.blocks.filter(isRunnableBlock);

  it('finds shell blocks, transcripts and commands, not JSON or diagrams', () => {
    expect(runnable.map((b) => [b.line, b.marker?.name])).toEqual([
      [5, 'first'],
      [9, undefined],
      [17, undefined],
      [32, 'in-a-list'],
    ]);
    expect(runnable[3]).toMatchObject({ marker: { kind: 'skip' }, code: 'docker compose up -d\n' });
  });

  it("runs a transcript's prompted lines and their continuations, not its output", () => {
    expect(commandsOf(runnable[2])).toBe(
      'herald backup --out x \\\n    --data-dir d\nherald restore x\n',
    );
    expect(commandsOf(runnable[0])).toBe('curl -s http://127.0.0.1:8765/healthz\n');
  });

  it('reports markers without a block, old and malformed markers', () => {
    expect(scanned.problems.map((p) => p.line)).toEqual([36, 39, 40, 42]);
    expect(scanned.problems[0].problem).toContain('"orphan" is not followed by a code block');
    expect(scanned.problems[1].problem).toContain('readme-example');
    expect(scanned.problems[2].problem).toContain('malformed');
    expect(scanned.problems[3].problem).toContain('"at-the-end" has no block');
  });

  it('refuses a substitution the block no longer holds', () => {
    expect(() => asTyped(runnable[0], [['http://127.0.0.1:9999', 'x']])).toThrow(
      'made-up.md:5 no longer holds "http://127.0.0.1:9999"',
    );
    expect(asTyped(runnable[0], [['http://127.0.0.1:8765', 'http://h:1']])).toBe(
      'curl -s http://h:1/healthz\n',
    );
  });
});

describe('the docs mark every example a reader runs', () => {
  const marked = scan.blocks.filter((b) => b.marker);

  it('every shell block (and every block with a prompt or a curl line) is marked to run or to skip', () => {
    const unmarked = scan.blocks.filter((b) => isRunnableBlock(b) && !b.marker).map(whereIs);
    expect(
      unmarked,
      'put <!-- doc-example: NAME --> (run it in doc-examples.test.ts) or <!-- doc-example-skip: NAME --> (its reason in SKIPPED) before each',
    ).toEqual([]);
  });

  it('every marker is well-formed and stands before a code block', () => {
    expect(scan.problems.map((p) => `${p.file}:${p.line}: ${p.problem}`)).toEqual([]);
  });

  it('no name marks two blocks', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const b of marked) {
      const first = seen.get(b.marker!.name);
      if (first) twice.push(`"${b.marker!.name}" at ${first} and ${whereIs(b)}`);
      else seen.set(b.marker!.name, whereIs(b));
    }
    expect(twice).toEqual([]);
  });

  it('every skipped block has its reason in SKIPPED, and every reason its block', () => {
    const skipped = marked.filter((b) => b.marker!.kind === 'skip');
    expect(
      skipped
        .filter((b) => !SKIPPED[b.marker!.name])
        .map((b) => `${b.marker!.name} (${whereIs(b)})`),
      'add the reason to SKIPPED',
    ).toEqual([]);
    const names = new Set(skipped.map((b) => b.marker!.name));
    expect(
      Object.keys(SKIPPED).filter((n) => !names.has(n)),
      'no block is marked so',
    ).toEqual([]);
  });

  it('every block marked to run is run by a test, and every example run here is marked', () => {
    const toRun = marked.filter((b) => b.marker!.kind === 'run').map((b) => b.marker!.name);
    const runs = [...RUN_HERE, ...Object.keys(RUN_ELSEWHERE)];
    expect(
      toRun.filter((n) => !runs.includes(n)),
      'run it here (RUN_HERE and a test) or in another test (RUN_ELSEWHERE)',
    ).toEqual([]);
    expect(
      runs.filter((n) => !toRun.includes(n)),
      'no block is marked <!-- doc-example: … --> so',
    ).toEqual([]);
    for (const [name, file] of Object.entries(RUN_ELSEWHERE)) {
      const test = join(REPO_ROOT, file);
      expect(
        existsSync(test) && readFileSync(test, 'utf8').includes(`'${name}'`),
        `${file} runs ${name}`,
      ).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------------------------

/** Signs in to a Herald started with the test's administrator. */
async function signIn(url: string): Promise<ConsoleClient> {
  const client = new ConsoleClient(url);
  await client.ok('POST', '/login', ADMIN);
  return client;
}

/** The hosted messages whose text or title holds `q`, as the reader lists them. */
async function hostedMessages(client: ConsoleClient, q: string): Promise<any[]> {
  return (await client.ok('GET', `/messages?q=${encodeURIComponent(q)}`)).items;
}

// One Herald on SQLite serves the README's and the docs' API examples; the backup example
// backs it up while it runs. The docs folder runs on SQLite only (scripts/test-plan.mjs).
describe.skipIf(onPostgres())('the examples against one running Herald', { shuffle: false }, () => {
  let work: string;
  let herald: HeraldProcess;
  let url: string;
  let client: ConsoleClient;
  let dataDir: string;
  let inbox: number;
  const running: RunningExample[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'herald-doc-examples-'));
    dataDir = join(work, 'data');
    herald = await startHeraldProcess(dataDir, await freePort());
    url = /Herald is running at (http:\/\/[^\s"]+)/.exec(herald.output())![1];
    client = await signIn(url);
    ({ id: inbox } = await client.ok('POST', '/channels', {
      name: 'inbox',
      type: 'hosted',
      config: {},
    }));
  }, 60_000);
  afterAll(async () => {
    for (const r of running) await r.stop();
    if (herald && herald.child.exitCode === null) {
      herald.child.kill('SIGTERM');
      await herald.exit;
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('README herald-send: herald send with a template token', async () => {
    // The reader's template is the walkthrough's disk-alert; their project has a Makefile.
    const { token } = await client.createTemplate(
      {
        name: 'disk-alert',
        markdown: '**{{host}}** disk at {{pct}}%',
        placeholders: [
          { key: 'host', label: 'Host' },
          { key: 'pct', label: 'Percent', default: '?' },
        ],
      },
      [{ channelId: inbox, contentType: 'markdown' }],
    );
    const project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'Makefile'), 'all:\n\t@echo "compiled 3 files"\n');
    const { stdout, stderr } = await runShell(
      asTyped(example('herald-send'), [['HERALD_TOKEN=...', `HERALD_TOKEN=${token}`]]),
      { cwd: project, env: readerEnv(work, { HERALD_URL: url }) },
    );
    expect(stdout, stderr).toMatch(/"code":200/);
    const sent = await hostedMessages(client, 'web-3');
    expect(JSON.stringify(sent)).toContain('**web-3** disk at 98%');
    // The text each line gives reaches the message (the template has no {{text}} of its own).
    const texts = {
      build: 'compiled 3 files',
      'Backup done': 'nightly backup finished',
      'Disk full': '/var at 98%',
    };
    for (const [title, text] of Object.entries(texts)) {
      const [message] = await hostedMessages(client, text);
      expect(message?.title, `the message with "${text}"`).toBe(title);
    }
  }, 60_000);

  it('send-api send-with-files: a report and a chart uploaded with a V2 send', async () => {
    const { token } = await client.createTemplate({ name: 'nightly', text: 'the nightly run' }, [
      { channelId: inbox, contentType: 'text' },
    ]);
    const folder = join(work, 'reports');
    mkdirSync(folder);
    writeFileSync(join(folder, 'report.pdf'), '%PDF-1.4\n% nightly\ntrailer <<>>\n%%EOF\n');
    writeFileSync(
      join(folder, 'chart.png'),
      Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
        'base64',
      ),
    );
    const { stdout, stderr } = await runShell(
      asTyped(example('send-with-files'), [
        ['"token":"…"', `"token":"${token}"`],
        ['http://127.0.0.1:8765', url],
      ]),
      { cwd: folder, env: readerEnv(work, {}) },
    );
    expect(stdout, stderr).toMatch(/"code":200/);
    const [message] = await hostedMessages(client, 'the nightly run');
    const detail = await client.ok('GET', `/messages/${message.id}`);
    expect(detail.attachments.map((a: any) => [a.name, a.type])).toEqual([
      ['report.pdf', 'application/pdf'],
      ['chart.png', 'image/png'],
    ]);
  });

  describe('docs/hooks.md', () => {
    let token: string;
    beforeAll(async () => {
      // The template the example describes: "{{deploy.env}}: {{deploy.items.1}} deployed".
      ({ token } = await client.createTemplate(
        {
          name: 'deploys',
          text: '{{deploy.env}}: {{deploy.items.1}} deployed',
          placeholders: [
            { key: 'deploy.env', label: 'Environment' },
            { key: 'deploy.items.1', label: 'Second item' },
          ],
        },
        [{ channelId: inbox, contentType: 'text' }],
      ));
    });

    it('hook-generic: a generic hook by the token in the path', async () => {
      const { stdout } = await runShell(
        asTyped(example('hook-generic'), [['http://127.0.0.1:8765', url]]),
        { cwd: work, env: readerEnv(work, { TOKEN: token }) },
      );
      expect(stdout).toMatch(/^\{"code":200,"msg":"success","data":\{"token":"[^"]+","count":1/);
      const [message] = await hostedMessages(client, 'worker deployed');
      expect(message).toMatchObject({ title: 'Deploy finished' });
      expect(JSON.stringify(message)).toContain('production: worker deployed');
    });

    it('hook-bearer: a generic hook with the token as a Bearer header', async () => {
      const { stdout } = await runShell(
        asTyped(example('hook-bearer'), [['http://127.0.0.1:8765', url]]),
        { cwd: work, env: readerEnv(work, { TOKEN: token }) },
      );
      expect(stdout).toMatch(/^\{"code":200,"msg":"success","data":\{"token":"[^"]+","count":1/);
      expect(JSON.stringify(await hostedMessages(client, 'Backup done'))).toContain('deployed');
    });
  });

  it('running-for-a-team admin-reset-password: the accounts, and a sign-in link for alice', async () => {
    // Alice, who forgot her password; Herald keeps running, as the doc allows.
    await client.ok('POST', '/users', {
      username: 'alice',
      role: 'editor',
      password: 'the one she forgot',
    });
    const { stdout, stderr } = await runShell(
      asTyped(example('admin-reset-password'), [['/var/lib/herald', dataDir]]),
      { cwd: work, env: readerEnv(work) },
    );
    expect(stdout, stderr).toMatch(/admin\b.*\badmin\b/);
    expect(stdout).toMatch(/alice\b.*\beditor\b/);
    const link = /(https?:\/\/\S+)/.exec(stdout.slice(stdout.indexOf('alice')))?.[1];
    const token = link && new URL(link).searchParams.get('token');
    expect(token, stdout).toBeTruthy();
    // She opens it and chooses a new password; she is signed in, and signs in with it later.
    const alice = new ConsoleClient(url);
    await alice.ok('POST', '/invite', { token, password: 'her new password' });
    await new ConsoleClient(url).ok('POST', '/login', {
      username: 'alice',
      password: 'her new password',
    });
  }, 60_000);

  it('running-for-a-team health-probes: /healthz and /readyz', async () => {
    const { stdout } = await runShell(
      asTyped(example('health-probes'), [['http://127.0.0.1:8765', url]]),
      { cwd: work, env: readerEnv(work) },
    );
    expect(stdout).toBe('{"status":"ok"}{"status":"ready"}');
  });

  it('running-for-a-team backup-restore: back up the running Herald, restore, start the copy', async () => {
    const backups = join(work, 'backups');
    const offsite = join(work, 'offsite');
    const restored = join(work, 'herald-restored');
    const code = asTyped(example('backup-restore'), [
      // The reader's own folders.
      ['/var/lib/herald-restored', restored],
      ['/var/lib/herald', dataDir],
      ['/backups/', `${backups}/`],
      ['/offsite/', `${offsite}/`],
      // The backup they made, by its date.
      ['herald-2026-11-27.herald-backup', 'herald-$(date +%F).herald-backup'],
    ]);
    // The last command starts Herald; port 8765 is the test machine's, so HERALD_PORT picks one.
    const copy = await startExample(code, {
      cwd: REPO_ROOT,
      env: readerEnv(work, { HERALD_PORT: '0' }),
      timeoutMs: 90_000,
    });
    running.push(copy);
    expect(readdirSync(backups)).toEqual([
      expect.stringMatching(/^herald-\d{4}-\d\d-\d\d\.herald-backup$/),
    ]);
    expect(readdirSync(offsite)).toEqual(['herald.herald-backup']);
    // The copy holds what the running Herald held: its administrator, channels and templates.
    const restoredClient = await signIn(copy.url);
    const names = (await restoredClient.ok('GET', '/templates')).items.map((t: any) => t.name);
    expect(names).toEqual(expect.arrayContaining(['disk-alert', 'deploys']));
    expect(JSON.stringify(await hostedMessages(restoredClient, 'web-3'))).toContain('web-3');
    await copy.stop();
  }, 120_000);

  it('running-for-a-team metrics-start: Herald with metrics behind a token', async () => {
    const started = await startExample(
      asTyped(example('metrics-start'), [['/var/lib/herald', join(work, 'metrics-data')]]),
      // From the checkout (/opt/herald in the docs); port 8765 is the test machine's.
      { cwd: REPO_ROOT, env: readerEnv(work, { HERALD_PORT: '0' }) },
    );
    running.push(started);
    expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
    // On, and behind the token the example made: a scrape without it is refused, not unknown.
    expect((await fetch(`${started.url}/metrics`)).status).toBe(401);
    await started.stop();
  }, 90_000);
});

// ---------------------------------------------------------------------------------------------

/** Whether the test PostgreSQL answers (as scripts/run-tests.mjs asks before its pass). */
async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({
    connectionString: POSTGRES_ADMIN_URL,
    connectionTimeoutMillis: 5000,
  });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const postgresMissing = !(await postgresAnswers()) && process.env.HERALD_POSTGRES_REQUIRED !== '1';

// A reader's way from Message Nest to PostgreSQL: import into ./data, move ./data to PostgreSQL,
// then dump and restore that database while Herald runs on it.
describe.skipIf(onPostgres())(
  'from Message Nest to PostgreSQL, as the docs go',
  { shuffle: false },
  () => {
    let work: string;
    let messageNest: string;

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'herald-doc-examples-mn-'));
      messageNest = join(work, 'message-nest', 'conf', 'database.db');
      mkdirSync(join(work, 'message-nest', 'conf'), { recursive: true });
      await buildSqliteMessageNest(messageNest);
    });
    afterAll(() => rmSync(work, { recursive: true, force: true }));

    it('migrating-from-message-nest import-message-nest: a dry run, then the import', async () => {
      const { stdout } = await runShell(
        asTyped(example('import-message-nest'), [
          ['/path/to/message-nest/conf/database.db', messageNest],
        ]),
        { cwd: work, env: readerEnv(work), timeoutMs: 120_000 },
      );
      // The report twice (the dry run's and the import's), and the data folder made by the import.
      expect(stdout.match(/Skipped:/g)?.length ?? 0).toBe(2);
      expect(existsSync(join(work, 'data', 'herald.db'))).toBe(true);
    }, 150_000);

    describe.skipIf(postgresMissing)(
      'on PostgreSQL (the test server, a database of its own)',
      () => {
        const database = `herald_docs_${randomBytes(4).toString('hex')}`;
        let databaseUrl: string;
        let herald: HeraldProcess | undefined;
        let dumpName: string;
        let channelsBefore: string[];

        const startHerald = async () => {
          herald = await startHeraldProcess(join(work, 'data'), await freePort(), {
            HERALD_DATABASE_URL: databaseUrl,
          });
          const url = /Herald is running at (http:\/\/[^\s"]+)/.exec(herald.output())![1];
          return signIn(url);
        };
        const stopHerald = async () => {
          if (herald && herald.child.exitCode === null) {
            herald.child.kill('SIGTERM');
            await herald.exit;
          }
          herald = undefined;
        };
        const channelNames = async (c: ConsoleClient) =>
          ((await c.ok('GET', '/channels')).items as any[]).map((ch) => ch.name).sort();

        beforeAll(async () => {
          await onServer(`CREATE DATABASE ${database}`);
          const u = new URL(POSTGRES_ADMIN_URL);
          u.pathname = `/${database}`;
          databaseUrl = u.toString();
        });
        afterAll(async () => {
          await stopHerald();
          await onServer(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        });

        it('postgresql migrate-to-postgres: the stopped ./data moved into PostgreSQL', async () => {
          const block = example('migrate-to-postgres');
          const { stdout, stderr } = await runShell(
            asTyped(block, [['postgres://herald:secret@db.internal:5432/herald', databaseUrl]]),
            { cwd: work, env: readerEnv(work), timeoutMs: 120_000 },
          );
          expect(stdout).toContain('Rows, per table (checked before the copy was committed):');
          // The transcript's closing line counts the tables as the tool does.
          const documented = /done, (\d+) tables/.exec(block.code)?.[1];
          const printed = /done, (\d+) tables/.exec(stderr)?.[1];
          expect(printed, stderr).toBeDefined();
          if (documented) expect(`done, ${documented} tables`).toBe(`done, ${printed} tables`);
        }, 150_000);

        it('running-for-a-team pg-dump and upgrading-pg-dump: dumps while Herald runs on the database', async () => {
          const client = await startHerald();
          channelsBefore = await channelNames(client);
          expect(channelsBefore.length).toBeGreaterThan(0);
          await runShell(asTyped(example('pg-dump')), {
            cwd: work,
            env: readerEnv(work, { HERALD_DATABASE_URL: databaseUrl }),
          });
          const dumps = readdirSync(work).filter((f) => /^herald-\d{8}-\d{6}\.dump$/.test(f));
          expect(dumps).toHaveLength(1);
          dumpName = dumps[0];
          // docs/upgrading.md's dump before an upgrade, the same command under a fixed name.
          await runShell(asTyped(example('upgrading-pg-dump')), {
            cwd: work,
            env: readerEnv(work, { HERALD_DATABASE_URL: databaseUrl }),
          });
          await runShell('pg_restore --list herald-before-upgrade.dump >/dev/null', {
            cwd: work,
            env: readerEnv(work),
          });
          // A change after the dump, which the restore must take back.
          await client.ok('POST', '/channels', {
            name: 'made-after-the-dump',
            type: 'hosted',
            config: {},
          });
        }, 90_000);

        it('running-for-a-team pg-restore: Herald stopped, the dump restored, Herald started again', async () => {
          await stopHerald();
          await runShell(
            asTyped(example('pg-restore'), [['herald-20261127-140000.dump', dumpName]]),
            {
              cwd: work,
              env: readerEnv(work, { HERALD_DATABASE_URL: databaseUrl }),
            },
          );
          const client = await startHerald();
          expect(await channelNames(client)).toEqual(channelsBefore);
          await stopHerald();
        }, 90_000);
      },
    );
  },
);
