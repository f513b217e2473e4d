import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN, ConsoleClient } from '../../helpers/herald';
import { freePort, startHeraldProcess, type HeraldProcess } from '../../helpers/herald-process';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';
import { buildSqliteMessageNest } from '../message-nest/mn-fixture';

/* eslint-disable @typescript-eslint/no-explicit-any -- console answers are loose JSON */

interface Node {
  dataDir: string;
  url: string;
  process: HeraldProcess;
  console: ConsoleClient;
}

let database: { name: string; url: string };
let work: string;
let mnBytes: Buffer;
const nodes: Node[] = [];

/**
 * Two real Herald processes on one database (Sequelize's models are bound to one Herald per
 * process, and an import writes through them): the import runs on A, B only listens.
 */
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mn-across-'));
  const mnFile = join(work, 'database.db');
  await buildSqliteMessageNest(mnFile);
  mnBytes = readFileSync(mnFile);
  database = await createTestDatabase();
  const env = {
    HERALD_DATABASE_URL: database.url,
    HERALD_SECRET_KEY: randomBytes(32).toString('hex'),
  };
  // One after another: the first runs the migrations and creates the administrator.
  for (let i = 0; i < 2; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), `herald-import-${i}-`));
    const url = `http://127.0.0.1:${await freePort()}`;
    const proc = await startHeraldProcess(dataDir, Number(new URL(url).port), env);
    const client = new ConsoleClient(url);
    await client.ok('POST', '/login', ADMIN);
    nodes.push({ dataDir, url, process: proc, console: client });
  }
}, 120_000);

afterAll(async () => {
  for (const n of nodes) {
    n.process.child.kill('SIGTERM');
    await n.process.exit;
    rmSync(n.dataDir, { recursive: true, force: true });
  }
  if (database) await dropTestDatabase(database.name);
  if (work) rmSync(work, { recursive: true, force: true });
}, 60_000);

async function upload(node: Node, query: string) {
  const res = await fetch(`${node.url}/api/console/import/message-nest${query}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/octet-stream', Cookie: node.console.cookie },
    body: mnBytes,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Polls until `done`; the deadline only keeps a broken relay from hanging the suite. */
async function waitUntil(done: () => Promise<boolean>, why: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(why);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const httpStatusOn = async (node: Node) =>
  (await node.console.ok('GET', '/settings')).sendApi.httpStatus as string;

// One journey: the import follows the dry run.
describe('a Message Nest import on one of two processes', { shuffle: false }, () => {
  it('a dry run on A changes the settings of neither process', async () => {
    const [a, b] = nodes;
    const r = await upload(a, '?dryRun=1');
    expect(r.status).toBe(200);
    expect(r.body.data.notes.join('\n')).toMatch(/Would set sendApi\.httpStatus/);
    // B reads the row again once A saves something else: the dry run left it as it was.
    await a.console.ok('PUT', '/settings', { v1WaitMs: 4_321 });
    await waitUntil(
      async () => (await b.console.ok('GET', '/settings')).v1WaitMs === 4_321,
      'B never took up the settings A saved',
    );
    expect(await httpStatusOn(a)).toBe('code');
    expect(await httpStatusOn(b)).toBe('code');
  });

  it('B answers like Message Nest once A imported, without a restart', async () => {
    const [a, b] = nodes;
    const r = await upload(a, '');
    expect(r.status).toBe(200);
    expect(r.body.data.notes.join('\n')).toMatch(/Set sendApi\.httpStatus to "always200"/);
    expect(await httpStatusOn(a)).toBe('always200');
    await waitUntil(
      async () => (await httpStatusOn(b)) === 'always200',
      'B kept its old settings after the import on A',
    );
    // What the setting is for: B's send API now answers HTTP 200 with the code in the body.
    const res = await fetch(`${b.url}/api/v1/message/send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: 'not-a-token', title: 't', text: 'x' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).code).toBe(401);
    // The imported rows are B's too.
    expect((await b.console.ok('GET', '/channels')).items).toHaveLength(14);
  });
});
