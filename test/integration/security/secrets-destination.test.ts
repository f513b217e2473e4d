import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startConnectProxy, type ConnectProxy } from '../../fixtures/peers/connect-proxy';
import { startSmtpSink, type SmtpSink } from '../../fixtures/peers/smtp-sink';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { migrate, MIGRATION_NAMES } from '../../../server/db/migrate';
import { onPostgres, openFolderDatabase, storedDatabase } from '../../helpers/test-database';

/** The last migration before proxy credentials were sealed by one. */
const BEFORE_SEALING = '2026-11-29-1000-hosted-insert-lock';

const MASK = '******';

/**
 * Issue 11, row 9: a console user changes where a channel sends (URL, SMTP host, proxy) and
 * presses save or "test send". The stored secrets must never reach the new destination.
 */
describe('secrets follow their destination', () => {
  let herald: TestHerald;
  let original: HttpPeer;
  let attacker: HttpPeer;
  let sinkA: SmtpSink;
  let sinkB: SmtpSink;
  let proxy: ConnectProxy;

  beforeAll(async () => {
    herald = await startTestHerald();
    original = await startHttpPeer();
    attacker = await startHttpPeer();
    sinkA = await startSmtpSink({ mode: 'plain' });
    sinkB = await startSmtpSink({ mode: 'plain' });
    proxy = await startConnectProxy();
  });
  afterAll(async () => {
    await herald.close(true);
    await Promise.all([original, attacker, sinkA, sinkB, proxy].map((p) => p.close()));
  });

  const webhook = () =>
    herald.createChannel('webhook', {
      url: original.url,
      secretHeaders: { Authorization: 'Bearer s3cret-token' },
    });

  it('PUT /channels/:id refuses a new webhook url with the secret header sent back masked', async () => {
    const ch = await webhook();
    // The peers are shared: only what arrives from here on comes from this test.
    const attacked = attacker.received.length;
    expect(ch.config.secretHeaders).toEqual({ Authorization: MASK });
    const res = await herald.console.put(`/channels/${ch.id}`, {
      config: { ...ch.config, url: attacker.url },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.msg).toMatch(/^config: re-enter secretHeaders\.Authorization: url changed\./);
    expect(res.body.data).toEqual({ reenter: ['secretHeaders.Authorization'], changed: ['url'] });

    // Nothing was saved: a test send still goes to the original peer, with the header.
    const sent = await herald.console.ok('POST', `/channels/${ch.id}/test`, {});
    expect(sent.ok).toBe(true);
    expect(attacker.received).toHaveLength(attacked);
    expect(original.received.at(-1)?.headers.authorization).toBe('Bearer s3cret-token');
  });

  it('POST /channels/:id/test with an unsaved new url and the masked header is refused and sends nothing', async () => {
    const ch = await webhook();
    const attacked = attacker.received.length;
    const res = await herald.console.post(`/channels/${ch.id}/test`, {
      config: { ...ch.config, url: attacker.url },
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/re-enter secretHeaders\.Authorization: url changed/);
    // Leaving the secret out entirely keeps it just the same, and is refused just the same.
    const { secretHeaders: _omitted, ...withoutSecrets } = ch.config;
    const omitted = await herald.console.post(`/channels/${ch.id}/test`, {
      config: { ...withoutSecrets, url: attacker.url },
    });
    expect(omitted.status).toBe(400);
    expect(attacker.received).toHaveLength(attacked);
  });

  it('a new url with the secret typed again is saved, and only the new secret goes there', async () => {
    const ch = await webhook();
    const attacked = attacker.received.length;
    const tried = await herald.console.ok('POST', `/channels/${ch.id}/test`, {
      config: { ...ch.config, url: attacker.url, secretHeaders: { Authorization: 'Bearer new' } },
    });
    expect(tried.ok).toBe(true);
    const saved = await herald.console.ok('PUT', `/channels/${ch.id}`, {
      config: { ...ch.config, url: attacker.url, secretHeaders: {} },
    });
    expect(saved.config.url).toBe(attacker.url);
    expect(saved.config.secretHeaders).toEqual({});
    await herald.console.ok('POST', `/channels/${ch.id}/test`, {});
    expect(attacker.received.slice(attacked).map((r) => r.headers.authorization)).toEqual([
      'Bearer new',
      undefined,
    ]);
  });

  it('an edit that keeps the url keeps the masked secret', async () => {
    const ch = await webhook();
    const before = original.received.length;
    const saved = await herald.console.ok('PUT', `/channels/${ch.id}`, {
      config: { ...ch.config, method: 'PUT' },
    });
    expect(saved.config.secretHeaders).toEqual({ Authorization: MASK });
    await herald.console.ok('POST', `/channels/${ch.id}/test`, {});
    expect(original.received).toHaveLength(before + 1);
    expect(original.received.at(-1)).toMatchObject({
      method: 'PUT',
      headers: { authorization: 'Bearer s3cret-token' },
    });
  });

  it('email: a new SMTP host with the password masked is refused on save and on test send', async () => {
    const ch = await herald.createChannel('email', {
      host: sinkA.host,
      port: sinkA.port,
      secure: 'none',
      username: 'herald',
      password: 'sink-password',
      from: 'herald@example.com',
    });
    expect(ch.config.password).toBe(MASK);
    const moved = { ...ch.config, host: 'localhost', port: sinkB.port };
    const put = await herald.console.put(`/channels/${ch.id}`, { config: moved });
    expect(put.status).toBe(400);
    expect(put.body.msg).toMatch(/^config: re-enter password: host, port changed\./);
    const test = await herald.console.post(`/channels/${ch.id}/test`, {
      recipient: 'ops@example.com',
      config: moved,
    });
    expect(test.status).toBe(400);
    expect(test.body.msg).toMatch(/re-enter password: host, port changed/);
    expect(sinkB.auths).toEqual([]);
    expect(sinkB.received).toEqual([]);

    // The stored password still works where it was entered for.
    const ok = await herald.console.ok('POST', `/channels/${ch.id}/test`, {
      recipient: 'ops@example.com',
    });
    expect(ok.ok).toBe(true);
    expect(sinkA.auths).toEqual([{ method: 'PLAIN', username: 'herald', ok: true }]);
  });

  it('proxy credentials are sealed in every database file, masked, kept for the same proxy and refused for another', async () => {
    const proxyUrl = proxy.url.replace('http://', 'http://puser:ppass-4711@');
    const ch = await herald.createChannel(
      'webhook',
      { url: original.url, proxy: proxyUrl },
      'proxied-channel',
    );
    expect(ch.config.proxy).toBe(`${proxy.url.replace('http://', `http://puser:${MASK}@`)}/`);

    if (!onPostgres()) {
      const files = readdirSync(herald.dataDir).filter((f) => f.startsWith('herald.db'));
      expect(files).toEqual(expect.arrayContaining(['herald.db', 'herald.db-wal']));
    }
    const bytes = await storedDatabase(herald.dataDir);
    expect(bytes.some((b) => b.includes('proxied-channel'))).toBe(true);
    for (const b of bytes) expect(b.includes('ppass-4711')).toBe(false);

    // Sent back masked to the same proxy: the stored password is used.
    const kept = await herald.console.ok('PUT', `/channels/${ch.id}`, {
      config: { ...ch.config, timeoutMs: 5000 },
    });
    expect(kept.config.proxy).toBe(ch.config.proxy);
    expect((await herald.console.ok('POST', `/channels/${ch.id}/test`, {})).ok).toBe(true);
    expect(proxy.credentials.at(-1)).toBe('puser:ppass-4711');

    // Masked, towards another proxy host: refused, the stored one stays.
    const other = ch.config.proxy.replace('127.0.0.1', 'localhost');
    const moved = await herald.console.put(`/channels/${ch.id}`, {
      config: { ...ch.config, proxy: other },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.msg).toMatch(/re-enter the proxy password: the proxy server changed/);
    const test = await herald.console.post(`/channels/${ch.id}/test`, {
      config: { ...ch.config, proxy: other },
    });
    expect(test.status).toBe(400);
    expect(proxy.credentials).toHaveLength(1);
  });
});

describe('proxy credentials stored in clear by an older version', () => {
  /** Every file of the data folder, and on PostgreSQL every row of its database, as bytes. */
  const files = async (dir: string) => [
    ...readdirSync(dir).map((f) => readFileSync(join(dir, f))),
    ...(onPostgres() ? await storedDatabase(dir) : []),
  ];

  it('the upgrade seals them once, leaves no clear copy in any file, and the proxy keeps working', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-proxy-upgrade-'));
    const proxy = await startConnectProxy();
    const peer = await startHttpPeer();
    try {
      // A folder as the version before the sealing migration left it, with a webhook whose
      // proxy URL holds a password in clear.
      const clearProxy = proxy.url.replace('http://', 'http://olduser:old-pass-0815@');
      const old = await openFolderDatabase(dataDir);
      try {
        await migrate(old.sequelize, BEFORE_SEALING);
        const at = "'2026-11-29 10:00:00.000 +00:00'";
        await old.sequelize.query(
          `INSERT INTO channels (id, name, description, type, config, created_at, updated_at)
           VALUES (7, 'upgraded', '', 'webhook', ?, ${at}, ${at})`,
          { replacements: [JSON.stringify({ url: peer.url, proxy: clearProxy })] },
        );
      } finally {
        await old.close();
      }
      expect((await files(dataDir)).some((b) => b.includes('old-pass-0815'))).toBe(true);

      const upgraded = await startTestHerald({ dataDir });
      const dto = await upgraded.console.ok('GET', '/channels/7');
      expect(dto.config.proxy).toBe(`${proxy.url.replace('http://', `http://olduser:${MASK}@`)}/`);
      expect((await upgraded.console.ok('POST', '/channels/7/test', {})).ok).toBe(true);
      expect(proxy.credentials).toEqual(['olduser:old-pass-0815']);
      await upgraded.close();
      for (const b of await files(dataDir)) expect(b.includes('old-pass-0815')).toBe(false);
    } finally {
      await proxy.close();
      await peer.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('migrate() without the key refuses a clear proxy password rather than leave it, and needs no key without one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-proxy-nokey-'));
    try {
      const db = await openFolderDatabase(dataDir);
      try {
        await migrate(db.sequelize, BEFORE_SEALING);
        const at = "'2026-11-29 10:00:00.000 +00:00'";
        const insert = (id: number, config: object) =>
          db.sequelize.query(
            `INSERT INTO channels (id, name, description, type, config, created_at, updated_at)
             VALUES (${id}, 'c${id}', '', 'webhook', ?, ${at}, ${at})`,
            { replacements: [JSON.stringify(config)] },
          );
        await insert(1, { url: 'https://example.com/hook', proxy: 'http://proxy.lan:3128' });
        await insert(2, {
          url: 'https://example.com/hook',
          proxy: 'http://u:secret@proxy.lan:3128',
        });
        await expect(migrate(db.sequelize)).rejects.toThrow(/proxy password in clear/);
        await db.sequelize.query('DELETE FROM channels WHERE id = 2');
        // Every migration after BEFORE_SEALING, the sealing first: later ones come and go.
        expect(await migrate(db.sequelize)).toEqual(
          MIGRATION_NAMES.slice(MIGRATION_NAMES.indexOf(BEFORE_SEALING) + 1),
        );
        expect(MIGRATION_NAMES[MIGRATION_NAMES.indexOf(BEFORE_SEALING) + 1]).toBe(
          '2026-11-30-1000-seal-proxy-credentials',
        );
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
