import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { UPLOAD_SCRATCH_PREFIX } from '../../../server/api/console/import/import-router';
import { encodeMessageNestToken } from '../../../server/crypto/message-nest-token';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { withoutTempDir } from '../../helpers/without-temp-dir';
import { buildSqliteMessageNest } from './mn-fixture';

/* eslint-disable @typescript-eslint/no-explicit-any -- console answers are loose JSON */

// One migration, in order: a dry run, the import, a second upload that must create nothing
// twice, then the imported tokens: each step is defined by what the one before left.
describe('Settings → Import: POST /api/console/import/message-nest', { shuffle: false }, () => {
  let work: string;
  let mnFile: string;
  let mnBytes: Buffer;
  let herald: TestHerald;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mn-console-'));
    mnFile = join(work, 'database.db');
    await buildSqliteMessageNest(mnFile);
    mnBytes = readFileSync(mnFile);
    herald = await startTestHerald();
  });

  afterAll(async () => {
    await herald.close(true);
    rmSync(work, { recursive: true, force: true });
  });

  const upload = async (
    query: string,
    body: Buffer | string = mnBytes,
    headers: Record<string, string> = {},
    cookie = herald.console.cookie,
  ) => {
    const res = await fetch(`${herald.url}/api/console/import/message-nest${query}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/octet-stream',
        ...(cookie ? { Cookie: cookie } : {}),
        ...headers,
      },
      body,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('a dry run answers the report and creates nothing', async () => {
    const r = await upload('?dryRun=1');
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      dryRun: true,
      source: 'the uploaded file',
      tablePrefix: 'message_',
      counts: {
        channels: { created: 14, alreadyImported: 0, skipped: 1 },
        tasks: { created: 3, alreadyImported: 0, skipped: 0 },
        templates: { created: 2, alreadyImported: 0, skipped: 0 },
        instances: { created: 9, alreadyImported: 0, skipped: 1 },
        schedules: { created: 1, alreadyImported: 0, skipped: 1 },
        hostedMessages: { created: 2, alreadyImported: 0, skipped: 0 },
      },
    });
    expect((await herald.console.ok('GET', '/channels')).items).toEqual([]);
    expect((await herald.console.ok('GET', '/tasks')).items).toEqual([]);
    expect((await herald.console.ok('GET', '/settings')).sendApi).toEqual({ httpStatus: 'code' });
  });

  it('stages the upload in the data folder, not the temp folder, and leaves nothing', async () => {
    await withoutTempDir(join(work, 'no-such-folder'), async () => {
      const r = await upload('?dryRun=1');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.counts.channels.created).toBe(14);
    });
    expect(readdirSync(herald.dataDir).filter((n) => n.startsWith(UPLOAD_SCRATCH_PREFIX))).toEqual(
      [],
    );
  });

  it('imports, turns on always200, and a second upload creates nothing twice', async () => {
    const r = await upload('');
    expect(r.status).toBe(200);
    expect(r.body.data.dryRun).toBe(false);
    expect(r.body.data.counts.channels).toEqual({ created: 14, alreadyImported: 0, skipped: 1 });
    // Recorded in the audit log with what it created; a dry run is not.
    const audited = await herald.console.ok('GET', '/audit?action=import.message-nest');
    expect(audited.total).toBe(1);
    expect(audited.items[0].changes).toContainEqual({
      field: 'created.channels',
      before: null,
      after: 14,
    });
    expect(r.body.data.skipped).toContainEqual({
      kind: 'channels',
      table: 'message_send_ways',
      id: 'WYbarkenc001',
      name: 'Bark encrypted',
      reason: expect.stringMatching(/^Bark: it encrypts pushes/),
    });
    expect(r.body.data.notes.join('\n')).toMatch(/Set sendApi\.httpStatus to "always200"/);
    expect((await herald.console.ok('GET', '/settings')).sendApi).toEqual({
      httpStatus: 'always200',
    });
    expect((await herald.console.ok('GET', '/channels')).items).toHaveLength(14);

    const again = await upload('');
    expect(again.body.data.counts.channels).toEqual({
      created: 0,
      alreadyImported: 14,
      skipped: 1,
    });
    expect(again.body.data.counts.tasks).toEqual({ created: 0, alreadyImported: 3, skipped: 0 });
    expect(again.body.data.counts.instances).toEqual({
      created: 0,
      alreadyImported: 9,
      skipped: 1,
    });
    expect((await herald.console.ok('GET', '/channels')).items).toHaveLength(14);
    expect(createHash('sha256').update(readFileSync(mnFile)).digest('hex')).toBe(
      createHash('sha256').update(mnBytes).digest('hex'),
    );
  });

  it('refuses what is not a Message Nest database, and requests it must not take', async () => {
    const notDb = await upload('', Buffer.from('hello, not a database'));
    expect(notDb.status).toBe(400);
    expect(notDb.body.msg).toMatch(/not a SQLite database/);

    const empty = await upload('', Buffer.alloc(0));
    expect(empty.status).toBe(400);
    expect(empty.body.msg).toMatch(/as the request body/);

    const other = join(work, 'other.db');
    await buildSqliteMessageNest(other, { prefix: 'x_', rows: {}, ddl: (d) => d.slice(0, 1) });
    const notNest = await upload('', readFileSync(other));
    expect(notNest.status).toBe(400);
    expect(notNest.body.msg).toMatch(/is not a Message Nest database/);

    const signedOut = await upload('', mnBytes, {}, '');
    expect(signedOut.status).toBe(401);

    const crossSite = await upload('', mnBytes, {
      'Sec-Fetch-Site': 'cross-site',
      Origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);

    const plain = await upload('', 'x', { 'Content-Type': 'text/plain' });
    expect(plain.status).toBe(415);
    // Elsewhere the console still takes JSON only.
    const elsewhere = await fetch(`${herald.url}/api/console/tasks`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', Cookie: herald.console.cookie },
      body: 'x',
    });
    expect(elsewhere.status).toBe(415);
  });

  describe('old Message Nest tokens, by choice', () => {
    const taskToken = encodeMessageNestToken('TKhosted0001');
    const templateToken = encodeMessageNestToken('TP0000000001');
    let task: any;
    let template: any;

    beforeAll(async () => {
      task = (await herald.console.ok('GET', '/tasks')).items.find(
        (t: any) => t.legacyId === 'TKhosted0001',
      );
      template = (await herald.console.ok('GET', '/templates')).items.find(
        (t: any) => t.legacyId === 'TP0000000001',
      );
      expect(task).toMatchObject({ acceptLegacyToken: false, legacyToken: taskToken });
      expect(template).toMatchObject({ acceptLegacyToken: false, legacyToken: templateToken });
    });

    const lastSend = async () => (await herald.console.ok('GET', '/logs')).items[0];

    it('off (the default): refused exactly as any unknown token', async () => {
      const v1 = await herald.sendV1({ token: taskToken, title: 't', text: 'hi' });
      expect(v1.body.code).toBe(401);
      expect(v1.body.msg).toMatch(/^token is invalid/);
      const v2 = await herald.sendV2({ token: templateToken, title: 't' });
      expect(v2.body.code).toBe(400);
      expect(v2.body.msg).toMatch(/^token解析失败/);
      // Nothing can send with one: the log's credential column has nothing to show.
      expect((await herald.console.ok('GET', '/logs')).messageNestCredentials).toBe(false);
    });

    it('on: V1 and V2 send with them, and the log shows which credential was used', async () => {
      await herald.console.ok('PUT', `/tasks/${task.id}`, { acceptLegacyToken: true });
      await herald.console.ok('PUT', `/templates/${template.id}`, { acceptLegacyToken: true });

      const v1 = await herald.sendV1({
        token: taskToken,
        title: 'legacy',
        text: 'from an old script',
      });
      expect(v1.body).toMatchObject({ code: 200, data: { status: 'sent' } });
      expect(await lastSend()).toMatchObject({ taskId: task.id, credential: 'legacy_token' });
      expect((await herald.console.ok('GET', '/logs')).messageNestCredentials).toBe(true);

      const v2 = await herald.sendV2({
        token: templateToken,
        title: 'welcome',
        placeholders: { username: 'Ann', 服务名: 'Herald' },
      });
      expect(v2.body).toMatchObject({ code: 200, data: { token: templateToken, count: 3 } });
      const send = await lastSend();
      expect(send).toMatchObject({ templateId: template.id, credential: 'legacy_token' });
      const detail = await herald.console.ok('GET', `/logs/${send.id}`);
      // The template came over with its Chinese placeholder key, and Herald fills it.
      expect(detail.markdown).toBe('**Hi** Ann from Herald');

      const { token } = await herald.console.ok('GET', `/tasks/${task.id}/token`);
      await herald.sendV1({ token, title: 'new', text: 'new token' });
      expect(await lastSend()).toMatchObject({ credential: 'token' });
    });

    it('the old TK… id sends only while task_id is on', async () => {
      const off = await herald.sendV1({ task_id: 'TKhosted0001', title: 'id', text: 'x' });
      expect(off.body.code).toBe(401);
      await herald.console.ok('PUT', '/settings', { allowTaskId: true });
      const on = await herald.sendV1({ task_id: 'TKhosted0001', title: 'id', text: 'x' });
      expect(on.body).toMatchObject({ code: 200, data: { status: 'sent' } });
      expect(await lastSend()).toMatchObject({ taskId: task.id, credential: 'legacy_task_id' });
      await herald.sendV1({ task_id: String(task.id), title: 'id', text: 'x' });
      expect(await lastSend()).toMatchObject({ credential: 'task_id' });

      await herald.console.ok('PUT', `/tasks/${task.id}`, { acceptLegacyToken: false });
      const refused = await herald.sendV1({ task_id: 'TKhosted0001', title: 'id', text: 'x' });
      expect(refused.body).toMatchObject({ code: 400, msg: 'task_id: must be a positive integer' });
    });

    it('a task Herald created has no Message Nest token to accept', async () => {
      const { task: own } = await herald.createTask('made in Herald', []);
      expect(own).toMatchObject({ legacyId: null, legacyToken: null, acceptLegacyToken: false });
      const r = await herald.console.put(`/tasks/${own.id}`, { acceptLegacyToken: true });
      expect(r.body.code).toBe(400);
      expect(r.body.msg).toMatch(
        /^acceptLegacyToken: this task was not imported from Message Nest/,
      );
      const created = await herald.console.post('/templates', {
        name: 'fresh',
        acceptLegacyToken: true,
      });
      expect(created.body.code).toBe(400);
    });
  });
});
