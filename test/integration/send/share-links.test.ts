import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PREVIEW_PER_MINUTE } from '../../../server/api/public/preview-router';
import { migrate } from '../../../server/db/migrate';
import { HostedMessage } from '../../../server/db/models';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { openFolderDatabase } from '../../helpers/test-database';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/** Opens a link the way a chat app's user would: no cookie, nothing but the address. */
async function open(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url.replace('/preview/', '/api/public/preview/'), { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe('share links of hosted messages', () => {
  let herald: TestHerald;
  let hostedId: number;

  beforeAll(async () => {
    // Trusting loopback lets the rate-limit test speak from its own address (X-Forwarded-For).
    herald = await startTestHerald({ trustProxy: 'loopback' });
    hostedId = (await herald.createChannel('hosted')).id;
  });
  afterAll(() => herald.close(true));

  const keyOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

  it('a V2 send answers hostMessageUrl, which opens the delivered message without login', async () => {
    const { token } = await herald.createTemplate(
      {
        placeholders: [{ key: 'host', label: 'Host' }],
        markdown: '**{{host}}** is down <script>alert(1)</script>',
      },
      [{ channelId: hostedId, contentType: 'markdown', publicLink: true }],
    );
    const res = await herald.sendV2({ token, title: 'v2 link', placeholders: { host: 'web-3' } });
    expect(res.status).toBe(200);
    const url: string = res.body.data.hostMessageUrl;
    expect(url).toMatch(new RegExp(`^${herald.url}/preview/[A-Za-z0-9_-]{22}$`));

    // The hosted message is stored with the send (docs/send-api.md): the link works the moment
    // the answer arrives, with no wait for a delivery.
    const opened = await open(url);
    expect(opened.body.code).toBe(200);
    expect(opened.body.data.title).toBe('v2 link');
    expect(opened.body.data.format).toBe('markdown');
    expect(opened.body.data.safeHtml).toContain('<strong>web-3</strong>');
    expect(opened.body.data.safeHtml).not.toContain('<script');
    expect(opened.headers.get('cache-control')).toBe('no-store');

    // The console shows the same link on the message.
    const list = await herald.console.ok('GET', '/messages?q=v2%20link');
    expect(list.items[0].previewUrl).toBe(url);
  });

  it('a V1 sync send answers hostMessageUrl valid at once; other kinds of instance answer none', async () => {
    const { token } = await herald.createTask('v1-link', [
      { channelId: hostedId, contentType: 'text', publicLink: true },
    ]);
    const res = await herald.sendV1({ token, title: 'v1 link', text: 'plain <b>text</b>' });
    expect(res.body.data.status).toBe('sent');
    const opened = await open(res.body.data.hostMessageUrl);
    expect(opened.status).toBe(200);
    expect(opened.body.data.content).toBe('plain <b>text</b>');
    expect(opened.body.data.safeHtml).toBe(
      '<pre class="herald-text">plain &lt;b&gt;text&lt;/b&gt;</pre>',
    );

    const async = await herald.sendV1({ token, title: 'v1 async link', text: 'x', mode: 'async' });
    expect(async.body.data.status).toBe('queued');
    const later = await herald.waitFor(async () => {
      const r = await open(async.body.data.hostMessageUrl);
      return r.status === 200 ? r : null;
    });
    expect(later.body.data.title).toBe('v1 async link');

    const peer = await herald.createChannel('webhook', { url: 'http://127.0.0.1:9/none' });
    const { token: noHosted } = await herald.createTask('v1-no-hosted', [
      { channelId: peer.id, contentType: 'text' },
    ]);
    const plain = await herald.sendV1({ token: noHosted, title: 'no link', text: 'x' });
    expect(plain.body.data).not.toHaveProperty('hostMessageUrl');
  });

  it('two sends get two different 128-bit keys', async () => {
    const { token } = await herald.createTask('v1-keys', [
      { channelId: hostedId, contentType: 'text', publicLink: true },
    ]);
    const a = await herald.sendV1({ token, title: 'k1', text: 'x' });
    const b = await herald.sendV1({ token, title: 'k2', text: 'x' });
    const [ka, kb] = [keyOf(a.body.data.hostMessageUrl), keyOf(b.body.data.hostMessageUrl)];
    expect(ka).not.toBe(kb);
    expect(Buffer.from(ka, 'base64url')).toHaveLength(16);
  });

  it('revoking a link makes it answer 404; asking again gives a new link that works', async () => {
    const { token } = await herald.createTask('v1-revoke', [
      { channelId: hostedId, contentType: 'text', publicLink: true },
    ]);
    const res = await herald.sendV1({ token, title: 'revoke me', text: 'x' });
    const url: string = res.body.data.hostMessageUrl;
    const [msg] = (await herald.console.ok('GET', '/messages?q=revoke%20me')).items;

    await herald.console.ok('DELETE', `/messages/${msg.id}/link`);
    const gone = await open(url);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({
      code: 404,
      msg: 'no message has this link: it was revoked, deleted or mistyped',
      data: null,
    });
    expect((await herald.console.ok('GET', `/messages/${msg.id}`)).previewUrl).toBeNull();

    const { previewUrl } = await herald.console.ok('POST', `/messages/${msg.id}/link`);
    expect(previewUrl).not.toBe(url);
    expect((await open(previewUrl)).body.data.title).toBe('revoke me');
    // Asking again returns the same link rather than breaking the one already shared.
    expect((await herald.console.ok('POST', `/messages/${msg.id}/link`)).previewUrl).toBe(
      previewUrl,
    );
  });

  it('a message stored before share links existed gets a link only when asked', async () => {
    const old = await herald.server.ctx.writeLock.run(() =>
      HostedMessage.create({
        channelId: hostedId,
        deliveryId: null,
        title: 'from before',
        content: 'old',
        format: 'text',
        url: null,
      }),
    );
    expect((await herald.console.ok('GET', `/messages/${old.id}`)).previewUrl).toBeNull();
    const { previewUrl } = await herald.console.ok('POST', `/messages/${old.id}/link`);
    expect((await open(previewUrl)).body.data.content).toBe('old');
  });

  it('a Message Nest key written by the importer opens its message', async () => {
    const imported = await herald.server.ctx.writeLock.run(() =>
      HostedMessage.create({
        channelId: hostedId,
        deliveryId: null,
        title: 'imported',
        content: '<p>hello</p>',
        format: 'html',
        url: null,
        previewKey: 'aB3dE5gH7jK9mN1p',
      }),
    );
    const opened = await open(`${herald.url}/preview/aB3dE5gH7jK9mN1p`);
    expect(opened.body.data.title).toBe(imported.title);
    expect(opened.body.data.safeHtml).toBe('<p>hello</p>');
  });

  it('unknown and malformed keys answer the same 404, and nothing is listed', async () => {
    for (const key of ['AAAAAAAAAAAAAAAAAAAAAA', 'x', 'a%2Fb%2Fcdefgh', "a'--"]) {
      const r = await fetch(`${herald.url}/api/public/preview/${key}`);
      expect(r.status).toBe(404);
      expect(((await r.json()) as any).msg).toMatch(/no message has this link/);
    }
    for (const path of ['/api/public/preview', '/api/public/preview/']) {
      const r = await fetch(`${herald.url}${path}`);
      expect(r.status).toBe(404);
      expect(((await r.json()) as any).data).toBeNull();
    }
  });

  it('the links follow the publicBaseUrl setting, which must be an http(s) address', async () => {
    const bad = await herald.console.put('/settings', { publicBaseUrl: 'herald.example.com' });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/publicBaseUrl: must be an absolute http:\/\/ or https:\/\//);

    await herald.console.ok('PUT', '/settings', {
      publicBaseUrl: 'https://herald.example.com/msg/',
    });
    try {
      const { token } = await herald.createTask('v1-base', [
        { channelId: hostedId, contentType: 'text', publicLink: true },
      ]);
      const res = await herald.sendV1({ token, title: 'based', text: 'x' });
      expect(res.body.data.hostMessageUrl).toMatch(
        /^https:\/\/herald\.example\.com\/msg\/preview\/[A-Za-z0-9_-]{22}$/,
      );
    } finally {
      await herald.console.ok('PUT', '/settings', { publicBaseUrl: '' });
    }
  });

  it('other sites cannot call the preview API from a browser', async () => {
    const { token } = await herald.createTask('v1-cross', [
      { channelId: hostedId, contentType: 'text', publicLink: true },
    ]);
    const url = (await herald.sendV1({ token, title: 'cross', text: 'x' })).body.data
      .hostMessageUrl;
    const cross = await open(url, { 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.test' });
    expect(cross.status).toBe(403);
    const own = await open(url, { 'Sec-Fetch-Site': 'same-origin' });
    expect(own.status).toBe(200);
  });

  it('previews are rate-limited per client address with 429 in the envelope', async () => {
    const { token } = await herald.createTask('v1-rate', [
      { channelId: hostedId, contentType: 'text', publicLink: true },
    ]);
    const url = (await herald.sendV1({ token, title: 'rate', text: 'x' })).body.data.hostMessageUrl;
    const from = (address: string) => open(url, { 'X-Forwarded-For': address });
    for (let i = 0; i < PREVIEW_PER_MINUTE; i++) {
      expect((await from('203.0.113.7')).status).toBe(200);
    }
    const limited = await from('203.0.113.7');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe(429);
    expect(limited.body.msg).toMatch(/too many previews from this address/);
    // Guessing keys counts too; another address is not affected.
    const guess = await fetch(`${herald.url}/api/public/preview/AAAAAAAAAAAAAAAAAAAAAA`, {
      headers: { 'X-Forwarded-For': '203.0.113.7' },
    });
    expect(guess.status).toBe(429);
    expect((await from('198.51.100.2')).status).toBe(200);
  });
});

describe('share links on a data folder from before them', () => {
  it('old messages keep working, have no link until asked, and new sends get one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-upgrade-'));
    const db = await openFolderDatabase(dataDir);
    const { sequelize } = db;
    try {
      await migrate(sequelize, '2026-11-23-1000-keep-task-id-on-existing-installs');
      const now = "'2026-12-01 10:00:00.000 +00:00'";
      await sequelize.query(
        `INSERT INTO channels (id, name, type, config, created_at, updated_at)
         VALUES (1, 'inbox', 'hosted', '{}', ${now}, ${now})`,
      );
      await sequelize.query(
        `INSERT INTO hosted_messages (channel_id, title, content, format, created_at, updated_at)
         VALUES (1, 'before the upgrade', 'kept', 'text', ${now}, ${now})`,
      );
    } finally {
      await db.close();
    }
    const herald = await startTestHerald({ dataDir });
    try {
      const [old] = (await herald.console.ok('GET', '/messages')).items;
      expect(old).toMatchObject({ title: 'before the upgrade', previewUrl: null });
      const { previewUrl } = await herald.console.ok('POST', `/messages/${old.id}/link`);
      expect((await open(previewUrl)).body.data.content).toBe('kept');

      const { token } = await herald.createTask('after-upgrade', [
        { channelId: 1, contentType: 'text', publicLink: true },
      ]);
      const sent = await herald.sendV1({ token, title: 'after the upgrade', text: 'new' });
      expect((await open(sent.body.data.hostMessageUrl)).body.data.content).toBe('new');
    } finally {
      await herald.close(true);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
