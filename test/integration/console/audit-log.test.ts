import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN, ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';

interface Entry {
  id: number;
  at: string;
  userId: number | null;
  username: string;
  ip: string | null;
  userAgent: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  targetName: string | null;
  changes: Array<{ field: string; before?: unknown; after?: unknown; changed?: true }>;
  names: Record<string, string>;
}

describe('the audit log', () => {
  let herald: TestHerald;

  beforeAll(async () => {
    herald = await startTestHerald({ startDispatcher: false });
  });
  afterAll(() => herald.close(true));

  /** The entries of one target, newest first. */
  async function entriesOf(targetType: string, id: number | string): Promise<Entry[]> {
    const page = await herald.console.ok('GET', `/audit?pageSize=100&q=`);
    const all: Entry[] = page.items;
    return all.filter((e) => e.targetType === targetType && e.targetId === String(id));
  }
  const change = (e: Entry, field: string) => e.changes.find((c) => c.field === field);

  it('a channel update records before → after, and a secret only as changed, when it changed', async () => {
    const created = await herald.console.ok('POST', '/channels', {
      name: 'audit robot',
      type: 'dingtalk',
      config: {
        webhookUrl: 'https://oapi.dingtalk.com/robot/send?access_token=abc',
        secret: 'SECfirstsecret',
      },
    });
    const [create] = await entriesOf('channel', created.id);
    expect(create).toMatchObject({
      action: 'channel.create',
      username: ADMIN.username,
      targetName: 'audit robot',
    });
    expect(create.userId).toEqual(expect.any(Number));
    expect(create.ip).toMatch(/127\.0\.0\.1/);
    expect(create.userAgent).toBeTruthy();
    expect(change(create, 'name')).toEqual({ field: 'name', before: null, after: 'audit robot' });
    expect(change(create, 'config.secret')).toEqual({ field: 'config.secret', changed: true });

    // The secret kept ("******"): it did not change, though it is sealed again.
    await herald.console.ok('PUT', `/channels/${created.id}`, {
      name: 'audit robot 2',
      config: {
        webhookUrl: 'https://oapi.dingtalk.com/robot/send?access_token=abc',
        secret: '******',
      },
    });
    const [kept] = await entriesOf('channel', created.id);
    expect(kept.action).toBe('channel.update');
    expect(kept.changes).toEqual([
      { field: 'name', before: 'audit robot', after: 'audit robot 2' },
    ]);

    // A new secret: recorded as changed, its value nowhere.
    await herald.console.ok('PUT', `/channels/${created.id}`, {
      config: {
        webhookUrl: 'https://oapi.dingtalk.com/robot/send?access_token=abc',
        secret: 'SECsecondsecret',
      },
    });
    const [replaced] = await entriesOf('channel', created.id);
    expect(replaced.changes).toEqual([{ field: 'config.secret', changed: true }]);

    const everything = JSON.stringify(await herald.console.ok('GET', '/audit?pageSize=100'));
    expect(everything).not.toContain('SECfirstsecret');
    expect(everything).not.toContain('SECsecondsecret');

    await herald.console.ok('DELETE', `/channels/${created.id}`);
    const [removed] = await entriesOf('channel', created.id);
    expect(removed.action).toBe('channel.delete');
    expect(change(removed, 'name')).toEqual({
      field: 'name',
      before: 'audit robot 2',
      after: null,
    });
    expect(change(removed, 'config.secret')).toEqual({ field: 'config.secret', changed: true });
  });

  it('an instance and a schedule keep the names of their template, task and channel as they were', async () => {
    const ops = await herald.createChannel('hosted', {}, 'audit Ops');
    const { template } = await herald.console.createTemplate(
      { name: 'audit Nightly', text: 'hi' },
      [],
    );
    const instance = await herald.console.ok('POST', `/templates/${template.id}/instances`, {
      channelId: ops.id,
      contentType: 'text',
    });
    const schedule = await herald.console.ok('POST', '/schedules', {
      name: 'audit nightly run',
      templateId: template.id,
      cron: '0 9 * * 1-5',
      title: 'nightly',
    });
    const names = {
      [`template:${template.id}`]: 'audit Nightly',
      [`channel:${ops.id}`]: 'audit Ops',
    };
    const [linked] = await entriesOf('instance', instance.id);
    expect(linked).toMatchObject({ action: 'instance.create', names });
    const [planned] = await entriesOf('schedule', schedule.id);
    expect(planned.names).toEqual({ [`template:${template.id}`]: 'audit Nightly' });

    // Renamed, then the instance removed and the template deleted: every entry reads as written.
    await herald.console.ok('PATCH', `/templates/${template.id}`, { name: 'audit Nightly 2' });
    await herald.console.ok('PUT', `/channels/${ops.id}`, { name: 'audit Ops 2', config: {} });
    await herald.console.ok('DELETE', `/instances/${instance.id}`);
    const [unlinked, linkedAgain] = await entriesOf('instance', instance.id);
    expect(linkedAgain.names).toEqual(names);
    expect(unlinked).toMatchObject({
      action: 'instance.delete',
      names: {
        [`template:${template.id}`]: 'audit Nightly 2',
        [`channel:${ops.id}`]: 'audit Ops 2',
      },
    });
    await herald.console.ok('DELETE', `/schedules/${schedule.id}`);
    await herald.console.ok('DELETE', `/templates/${template.id}`);
    expect((await entriesOf('instance', instance.id)).at(-1)!.names).toEqual(names);

    // A task's instance is named by its task; an entry with nothing to name has {}.
    const { task } = await herald.createTask('audit reports', [
      { channelId: ops.id, contentType: 'text' },
    ]);
    const instances = await herald.console.ok('GET', `/tasks/${task.id}/instances`);
    const [byTask] = await entriesOf('instance', instances[0].id);
    expect(byTask.names).toEqual({
      [`task:${task.id}`]: 'audit reports',
      [`channel:${ops.id}`]: 'audit Ops 2',
    });
    const [taskCreated] = await entriesOf('task', task.id);
    expect(taskCreated.names).toEqual({});
  });

  it('a schedule update records what was edited, and running it records the run only', async () => {
    const hosted = await herald.createChannel('hosted', {}, 'audit schedule hosted');
    const { task } = await herald.createTask('audit schedule task', [
      { channelId: hosted.id, contentType: 'text' },
    ]);
    const schedule = await herald.console.ok('POST', '/schedules', {
      name: 'audit morning',
      taskId: task.id,
      cron: '0 9 * * 1',
      title: 'good morning',
      text: 'x',
    });
    await herald.console.ok('PUT', `/schedules/${schedule.id}`, { cron: '0 10 * * 1' });
    await herald.console.ok('POST', `/schedules/${schedule.id}/run`);
    const entries = await entriesOf('schedule', schedule.id);
    const update = entries.find((e) => e.action === 'schedule.update')!;
    expect(update.changes).toEqual([{ field: 'cron', before: '0 9 * * 1', after: '0 10 * * 1' }]);
    const run = entries.find((e) => e.action === 'schedule.run')!;
    // Its next and last run times move; they are not what the person edited.
    expect(run.changes).toEqual([]);
  });

  it('a refused change records nothing', async () => {
    const before = (await herald.console.ok('GET', '/audit?pageSize=1')).total;
    expect((await herald.console.put('/channels/999999', { name: 'x' })).status).toBe(404);
    expect((await herald.console.ok('GET', '/audit?pageSize=1')).total).toBe(before);
  });

  it('token rotations and hook secrets are recorded as changed', async () => {
    const { template } = await herald.console.createTemplate(
      { name: 'audit template', text: 'hi' },
      [],
    );
    await herald.console.ok('POST', `/templates/${template.id}/token/rotate`);
    const [rotated] = await entriesOf('template', template.id);
    expect(rotated.action).toBe('template.rotate-token');
    expect(rotated.changes).toEqual([{ field: 'token', changed: true }]);

    await herald.console.ok('PATCH', `/templates/${template.id}`, { hookSecret: 'hook-s3cret' });
    const [hook] = await entriesOf('template', template.id);
    expect(hook.action).toBe('template.update');
    expect(hook.changes).toEqual([{ field: 'hookSecret', changed: true }]);
    expect(JSON.stringify(hook)).not.toContain('hook-s3cret');

    const task = await herald.console.ok('POST', '/tasks', { name: 'audit task' });
    await herald.console.ok('POST', `/tasks/${task.id}/token/rotate`);
    const [taskRotated, taskCreated] = await entriesOf('task', task.id);
    expect(taskRotated.action).toBe('task.rotate-token');
    expect(taskCreated.action).toBe('task.create');
  });

  it('sign-ins, failed sign-ins and sign-outs', async () => {
    const browser = new ConsoleClient(herald.url);
    const failed = await browser.post('/login', { username: 'mallory', password: 'guess' });
    expect(failed.status).toBe(401);
    await browser.ok('POST', '/login', ADMIN);
    await browser.ok('POST', '/logout');

    const items: Entry[] = [];
    for (const action of ['auth.sign-in', 'auth.sign-in-failed', 'auth.sign-out']) {
      const page = await herald.console.ok('GET', `/audit?action=${action}&pageSize=100`);
      expect(page.total, action).toBeGreaterThan(0);
      items.push(...page.items);
    }
    const page = { items };
    const fail = (page.items as Entry[]).find((e) => e.username === 'mallory')!;
    expect(fail).toMatchObject({ action: 'auth.sign-in-failed', userId: null });
    expect(JSON.stringify(page)).not.toContain('guess');
    const out = (page.items as Entry[]).find((e) => e.action === 'auth.sign-out')!;
    expect(out.username).toBe(ADMIN.username);
  });

  it('a prune is recorded with what it deleted', async () => {
    const r = await herald.console.ok('POST', '/maintenance/prune');
    expect(r.deleted.auditEntries).toBe(0);
    const page = await herald.console.ok('GET', '/audit?action=history.prune');
    expect(page.items[0]).toMatchObject({ action: 'history.prune', targetType: 'history' });
  });

  it('filters by user, action, text and time, and pages newest first', async () => {
    for (const name of ['filter-a', 'filter-b', 'filter-c']) {
      await herald.console.ok('POST', '/tasks', { name: `audit ${name}` });
    }
    const byText = await herald.console.ok('GET', '/audit?q=audit%20filter-&pageSize=2');
    expect(byText.total).toBe(3);
    expect(byText.items.map((e: Entry) => e.targetName)).toEqual([
      'audit filter-c',
      'audit filter-b',
    ]);
    const second = await herald.console.ok('GET', '/audit?q=audit%20filter-&pageSize=2&page=2');
    expect(second.items.map((e: Entry) => e.targetName)).toEqual(['audit filter-a']);

    const byUser = await herald.console.ok('GET', '/audit?user=nobody-at-all');
    expect(byUser.total).toBe(0);
    const mine = await herald.console.ok('GET', `/audit?user=${ADMIN.username}&action=task.create`);
    expect(mine.items.every((e: Entry) => e.action === 'task.create')).toBe(true);
    expect(mine.total).toBeGreaterThanOrEqual(3);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await herald.console.ok('GET', `/audit?from=${future}`)).total).toBe(0);
    const all = (await herald.console.ok('GET', '/audit?pageSize=1')).total;
    expect((await herald.console.ok('GET', `/audit?to=${future}&pageSize=1`)).total).toBe(all);
    expect((await herald.console.get('/audit?from=yesterday')).status).toBe(400);
    expect((await herald.console.get('/audit?pageSize=101')).status).toBe(400);
  });

  it('no route edits or deletes entries', async () => {
    const [entry] = (await herald.console.ok('GET', '/audit?pageSize=1')).items;
    for (const [method, path] of [
      ['PUT', `/audit/${entry.id}`],
      ['PATCH', `/audit/${entry.id}`],
      ['DELETE', `/audit/${entry.id}`],
      ['DELETE', '/audit'],
      ['PUT', '/audit'],
      ['POST', '/audit'],
    ]) {
      const r = await herald.console.request(method, path, method === 'DELETE' ? undefined : {});
      expect([404, 405], `${method} ${path}`).toContain(r.status);
      expect(r.body.code).toBe(r.status);
    }
    const [still] = (await herald.console.ok('GET', `/audit?pageSize=100`)).items.filter(
      (e: Entry) => e.id === entry.id,
    );
    expect(still).toEqual(entry);
  });

  it('retention prunes entries older than retention.auditDays (default 365), 0 keeps them', async () => {
    const { sequelize, writeLock, clock } = herald.server.ctx;
    const day = 24 * 60 * 60 * 1000;
    const insert = (name: string, ageDays: number) =>
      writeLock.run(({ transaction }) =>
        sequelize.query(
          `INSERT INTO audit_entries (at, username, action, target_type, target_name)
           VALUES (:at, 'cli', 'backup.create', 'backup', :name)`,
          { replacements: { at: clock.now() - ageDays * day, name }, transaction },
        ),
      );
    const names = async () =>
      (await herald.console.ok('GET', '/audit?q=retention-probe&pageSize=100')).items
        .map((e: Entry) => e.targetName)
        .sort();
    await insert('retention-probe old', 400);
    await insert('retention-probe recent', 100);

    await herald.console.ok('PUT', '/settings', { retention: { auditDays: 0 } });
    expect((await herald.console.ok('POST', '/maintenance/prune')).deleted.auditEntries).toBe(0);
    expect(await names()).toEqual(['retention-probe old', 'retention-probe recent']);

    await herald.console.ok('PUT', '/settings', { retention: { auditDays: 365 } });
    expect((await herald.console.ok('POST', '/maintenance/prune')).deleted.auditEntries).toBe(1);
    expect(await names()).toEqual(['retention-probe recent']);
    // The settings change itself is recorded, nested fields by their path.
    const [update] = (await herald.console.ok('GET', '/audit?action=settings.update')).items;
    expect(update.changes).toEqual([{ field: 'retention.auditDays', before: 0, after: 365 }]);
  });

  it('is behind the console sign-in', async () => {
    expect((await new ConsoleClient(herald.url).get('/audit')).status).toBe(401);
  });
});
