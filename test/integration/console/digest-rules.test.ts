import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';

/**
 * The console's digest rules (issue 46 §2): a task's and a template's rule set, read, changed
 * and removed over HTTP; bad windows, cron expressions and zones refused under their field;
 * an unknown owner 404; a viewer refused; each change audited on its task or template.
 */
let herald: TestHerald;

beforeAll(async () => {
  herald = await startTestHerald();
});
afterAll(() => herald.close(true));

describe('digest rules in the console API', () => {
  it('sets, reads, changes and removes a template rule and a task rule', async () => {
    const hosted = await herald.createChannel('hosted', {}, 'inbox');
    const { template } = await herald.createTemplate({ name: 'nightly', text: 'x' }, [
      { channelId: hosted.id, contentType: 'text' },
    ]);
    const path = `/templates/${template.id}/digest`;
    expect(await herald.console.ok('GET', path)).toEqual({ rule: null });
    expect(await herald.console.ok('PUT', path, { windowMinutes: 30 })).toEqual({
      rule: { windowMinutes: 30, cron: null, timezone: null, priorityThreshold: 5, titleLimit: 20 },
    });
    const cron = {
      cron: '0 8 * * 1-5',
      timezone: 'europe/berlin',
      priorityThreshold: 4,
      titleLimit: 10,
    };
    expect(await herald.console.ok('PUT', path, cron)).toEqual({
      rule: { ...cron, windowMinutes: null, timezone: 'Europe/Berlin' },
    });
    expect((await herald.console.ok('GET', path)).rule.timezone).toBe('Europe/Berlin');
    await herald.console.ok('DELETE', path);
    expect(await herald.console.ok('GET', path)).toEqual({ rule: null });

    const { task } = await herald.createTask('jobs', [
      { channelId: hosted.id, contentType: 'text' },
    ]);
    const taskPath = `/tasks/${task.id}/digest`;
    await herald.console.ok('PUT', taskPath, { windowMinutes: 1440 });
    expect((await herald.console.ok('GET', taskPath)).rule.windowMinutes).toBe(1440);

    const [instance] = await herald.console.ok('GET', `/tasks/${task.id}/instances`);
    const instancePath = `/instances/${instance.id}/digest`;
    expect(await herald.console.ok('PUT', instancePath, { windowMinutes: 10 })).toMatchObject({
      rule: { windowMinutes: 10 },
    });
    expect((await herald.console.get('/instances/999999/digest')).status).toBe(404);
    const instanceAudit = await herald.console.ok('GET', '/audit?action=instance.update');
    expect(instanceAudit.items[0]).toMatchObject({ action: 'instance.update' });

    const audit = await herald.console.ok('GET', '/audit?action=template.update');
    expect(audit.items[0]).toMatchObject({ action: 'template.update', targetName: 'nightly' });
  });

  it('refuses a bad rule under its field, an unknown owner, and a viewer', async () => {
    const hosted = await herald.createChannel('hosted', {}, 'inbox-2');
    const { template } = await herald.createTemplate({ name: 'refusals', text: 'x' }, [
      { channelId: hosted.id, contentType: 'text' },
    ]);
    const path = `/templates/${template.id}/digest`;
    for (const [body, field] of [
      [{ windowMinutes: 0 }, 'windowMinutes'],
      [{ windowMinutes: 1441 }, 'windowMinutes'],
      [{}, 'digest'],
      [{ windowMinutes: 5, cron: '0 * * * *' }, 'digest'],
      [{ cron: '0 25 * * *', timezone: 'UTC' }, 'cron'],
      [{ cron: '0 8 * * *', timezone: 'Mars/Olympus' }, 'timezone'],
      [{ windowMinutes: 5, priorityThreshold: 6 }, 'priorityThreshold'],
    ] as const) {
      const r = await herald.console.put(path, body);
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
      expect(r.body.msg, JSON.stringify(body)).toContain(field);
    }
    expect((await herald.console.get('/templates/999999/digest')).status).toBe(404);
    expect((await herald.console.put('/tasks/999999/digest', { windowMinutes: 5 })).status).toBe(
      404,
    );
    const { client: viewer } = await herald.signedInAs('viewer');
    expect((await viewer.get(path)).status).toBe(403);
    expect((await viewer.put(path, { windowMinutes: 5 })).status).toBe(403);
  });
});
