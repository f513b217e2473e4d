import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { migrate } from '../../../server/db/migrate';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { openFolderDatabase } from '../../helpers/test-database';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/**
 * A hosted instance's public-link setting (issue 41 §7, docs/send-api.md "Share links"): off for
 * new instances, so a message has no link until someone shares it in the reader and the send
 * answer has no `hostMessageUrl`; on, the link is made at accept and answered as before. Hosted
 * instances that existed before the setting keep it on. Runs on SQLite and PostgreSQL.
 */

/** Opens a link the way a chat app's user would: no cookie, nothing but the address. */
async function open(url: string) {
  const res = await fetch(url.replace('/preview/', '/api/public/preview/'));
  return { status: res.status, body: (await res.json()) as any };
}

const LINK = /^http:\/\/127\.0\.0\.1:\d+\/preview\/[A-Za-z0-9_-]{22}$/;

describe('the public-link setting of hosted instances', () => {
  let herald: TestHerald;
  let hostedId: number;

  beforeAll(async () => {
    herald = await startTestHerald();
    hostedId = (await herald.createChannel('hosted')).id;
  });
  afterAll(() => herald.close(true));

  /** The stored message of the send titled `title`, once the delivery has run. */
  const messageTitled = (title: string) =>
    herald.waitFor(async () => {
      const page = await herald.console.ok('GET', `/messages?q=${encodeURIComponent(title)}`);
      return page.items.find((m: any) => m.title === title) ?? null;
    });

  it('is off for a new instance: answers carry no hostMessageUrl and messages no link', async () => {
    const { template, token } = await herald.createTemplate(
      { text: 'private {{x}}', placeholders: [{ key: 'x', label: 'x' }] },
      [{ channelId: hostedId, contentType: 'text' }],
    );
    const [instance] = await herald.console.ok('GET', `/templates/${template.id}/instances`);
    expect(instance.publicLink).toBe(false);

    const v2 = await herald.sendV2({ token, title: 'private v2', placeholders: { x: '1' } });
    expect(v2.status).toBe(200);
    expect(v2.body.data).toEqual({ token, count: 1 });
    expect((await messageTitled('private v2')).previewUrl).toBeNull();

    const { token: taskToken } = await herald.createTask('private task', [
      { channelId: hostedId, contentType: 'text' },
    ]);
    for (const mode of ['sync', 'async'] as const) {
      const v1 = await herald.sendV1({
        token: taskToken,
        title: `private v1 ${mode}`,
        text: 'x',
        mode,
      });
      expect(v1.status).toBe(200);
      expect(v1.body.data).not.toHaveProperty('hostMessageUrl');
      expect((await messageTitled(`private v1 ${mode}`)).previewUrl).toBeNull();
    }
  });

  it('a private message gets a link when shared in the reader, which works and can be revoked', async () => {
    const { token } = await herald.createTemplate({ text: 'share me later' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    await herald.sendV2({ token, title: 'shared later' });
    const message = await messageTitled('shared later');
    expect(message.previewUrl).toBeNull();

    const { previewUrl } = await herald.console.ok('POST', `/messages/${message.id}/link`);
    expect(previewUrl).toMatch(LINK);
    expect((await open(previewUrl)).body.data.content).toBe('share me later');
    // The reader's list and detail show it shared.
    expect((await messageTitled('shared later')).previewUrl).toBe(previewUrl);
    expect((await herald.console.ok('GET', `/messages/${message.id}`)).previewUrl).toBe(previewUrl);

    await herald.console.ok('DELETE', `/messages/${message.id}/link`);
    expect((await open(previewUrl)).status).toBe(404);
    expect((await messageTitled('shared later')).previewUrl).toBeNull();
  });

  it('on, the link is made at accept and answered; off again, it is not', async () => {
    const { template, token } = await herald.createTemplate(
      { text: 'public {{x}}', placeholders: [{ key: 'x', label: 'x' }] },
      [{ channelId: hostedId, contentType: 'text', publicLink: true }],
    );
    const [instance] = await herald.console.ok('GET', `/templates/${template.id}/instances`);
    expect(instance.publicLink).toBe(true);

    const on = await herald.sendV2({ token, title: 'public v2', placeholders: { x: '2' } });
    expect(on.body.data).toEqual({ token, count: 1, hostMessageUrl: expect.stringMatching(LINK) });
    expect((await messageTitled('public v2')).previewUrl).toBe(on.body.data.hostMessageUrl);
    expect((await open(on.body.data.hostMessageUrl)).body.data.content).toBe('public 2');

    const patched = await herald.console.ok('PATCH', `/instances/${instance.id}`, {
      publicLink: false,
    });
    expect(patched.publicLink).toBe(false);
    const off = await herald.sendV2({
      token,
      title: 'public turned off',
      placeholders: { x: '3' },
    });
    expect(off.body.data).toEqual({ token, count: 1 });
    expect((await messageTitled('public turned off')).previewUrl).toBeNull();
    // Turning the setting off leaves links already made alone.
    expect((await open(on.body.data.hostMessageUrl)).status).toBe(200);

    await herald.console.ok('PATCH', `/instances/${instance.id}`, { publicLink: true });
    const again = await herald.sendV1({
      token: (
        await herald.createTask('public task', [
          { channelId: hostedId, contentType: 'text', publicLink: true },
        ])
      ).token,
      title: 'public v1',
      text: 'y',
    });
    expect(again.body.data).toMatchObject({
      status: 'sent',
      hostMessageUrl: expect.stringMatching(LINK),
    });
    expect((await open(again.body.data.hostMessageUrl)).body.data.content).toBe('y');
  });

  it('with a public and a private hosted instance, the answer is the public one’s link', async () => {
    const second = (await herald.createChannel('hosted', {}, 'second inbox')).id;
    const { token } = await herald.createTemplate({ text: 'two inboxes' }, [
      { channelId: hostedId, contentType: 'text' },
      { channelId: second, contentType: 'text', publicLink: true },
    ]);
    const res = await herald.sendV2({ token, title: 'two inboxes' });
    expect(res.body.data).toEqual({ token, count: 2, hostMessageUrl: expect.stringMatching(LINK) });
    const both = await herald.waitFor(async () => {
      const page = await herald.console.ok('GET', '/messages?q=two%20inboxes');
      return page.items.length === 2 ? page.items : null;
    });
    const byChannel = new Map(both.map((m: any) => [m.channelId, m.previewUrl]));
    expect(byChannel.get(second)).toBe(res.body.data.hostMessageUrl);
    expect(byChannel.get(hostedId)).toBeNull();
  });

  it('other kinds refuse a public link with 400 naming the field, and a non-boolean is refused', async () => {
    const webhook = await herald.createChannel('webhook', { url: 'http://127.0.0.1:9/none' });
    const { task } = await herald.createTask('public-link refusals', []);
    const refused = await herald.console.post(`/tasks/${task.id}/instances`, {
      channelId: webhook.id,
      contentType: 'text',
      publicLink: true,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      code: 400,
      msg: 'publicLink: only hosted-message instances have public links, not Custom webhook',
      data: null,
    });

    const made = await herald.console.ok('POST', `/tasks/${task.id}/instances`, {
      channelId: webhook.id,
      contentType: 'text',
    });
    expect(made.publicLink).toBe(false);
    const patched = await herald.console.patch(`/instances/${made.id}`, { publicLink: true });
    expect(patched.status).toBe(400);
    expect(patched.body.msg).toMatch(/^publicLink: only hosted-message instances/);

    const hostedInstance = await herald.console.post(`/tasks/${task.id}/instances`, {
      channelId: hostedId,
      contentType: 'text',
      publicLink: 'yes',
    });
    expect(hostedInstance.status).toBe(400);
    expect(hostedInstance.body.msg).toMatch(/^publicLink: /);
  });
});

describe('the public-link setting across the upgrade', () => {
  const BEFORE = '2026-11-30-1000-seal-proxy-credentials';
  const now = "'2026-11-30 10:00:00.000 +00:00'";
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-public-link-upgrade-'));
  let herald: TestHerald;

  beforeAll(async () => {
    // A folder as the previous version left it: a hosted and a webhook channel, a task and a
    // template sending to them, and a hosted message someone already shared.
    const db = await openFolderDatabase(dataDir);
    try {
      await migrate(db.sequelize, BEFORE);
      for (const sql of [
        `INSERT INTO channels (id, name, type, config, created_at, updated_at)
         VALUES (1, 'inbox', 'hosted', '{}', ${now}, ${now}),
                (2, 'hook', 'webhook', '{"url":"http://127.0.0.1:9/none"}', ${now}, ${now})`,
        `INSERT INTO tasks (id, name, token_generation, created_at, updated_at)
         VALUES (1, 'nightly', 0, ${now}, ${now})`,
        `INSERT INTO templates (id, name, placeholders, text, token_generation, created_at, updated_at)
         VALUES (1, 'disk', '[]', 'disk full', 0, ${now}, ${now})`,
        `INSERT INTO instances (id, task_id, template_id, channel_id, content_type, created_at, updated_at)
         VALUES (1, 1, NULL, 1, 'text', ${now}, ${now}),
                (2, NULL, 1, 1, 'text', ${now}, ${now}),
                (3, NULL, 1, 2, 'text', ${now}, ${now})`,
        `INSERT INTO hosted_messages (channel_id, title, content, format, preview_key, created_at, updated_at)
         VALUES (1, 'shared before', 'old', 'text', 'aB3dE5gH7jK9mN1pQr5tUv', ${now}, ${now})`,
      ]) {
        await db.sequelize.query(sql);
      }
    } finally {
      await db.close();
    }
    herald = await startTestHerald({ dataDir });
  });
  afterAll(async () => {
    await herald?.close(true);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('hosted instances that existed keep answering hostMessageUrl; others stay off', async () => {
    const templateInstances = await herald.console.ok('GET', '/templates/1/instances');
    expect(templateInstances.map((i: any) => [i.id, i.publicLink])).toEqual([
      [2, true],
      [3, false],
    ]);
    expect((await herald.console.ok('GET', '/tasks/1/instances'))[0].publicLink).toBe(true);

    const { token } = await herald.console.ok('GET', '/templates/1/token');
    const v2 = await herald.sendV2({ token, title: 'after the upgrade' });
    expect(v2.body.data).toEqual({ token, count: 2, hostMessageUrl: expect.stringMatching(LINK) });
    const opened = await herald.waitFor(async () => {
      const r = await open(v2.body.data.hostMessageUrl);
      return r.status === 200 ? r : null;
    });
    expect(opened.body.data.content).toBe('disk full');

    const { token: taskToken } = await herald.console.ok('GET', '/tasks/1/token');
    const v1 = await herald.sendV1({ token: taskToken, title: 'v1 after', text: 'x' });
    expect(v1.body.data).toMatchObject({
      status: 'sent',
      hostMessageUrl: expect.stringMatching(LINK),
    });
  });

  it('a link made before the upgrade keeps working', async () => {
    const old = await open(`${herald.url}/preview/aB3dE5gH7jK9mN1pQr5tUv`);
    expect(old.status).toBe(200);
    expect(old.body.data.title).toBe('shared before');
  });

  it('an instance made after the upgrade starts off', async () => {
    const made = await herald.console.ok('POST', '/tasks/1/instances', {
      channelId: 1,
      contentType: 'markdown',
    });
    expect(made.publicLink).toBe(false);
  });
});
