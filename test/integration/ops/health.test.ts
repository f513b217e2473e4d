import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openDatabase } from '../../../server/db/database';
import { migrate } from '../../../server/db/migrate';
import { initModels } from '../../../server/db/models';
import { Readiness } from '../../../server/features/ops/readiness';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { rawRequest } from '../../helpers/exact-request';

/** The answer to a request whose last header line is sent only after `between` ran. */
function requestAcross(port: number, path: string, between: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString();
      // One answer is all this test reads; the server may keep the socket open meanwhile.
      if (/\r\n\r\n[\s\S]*\}/.test(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, () => {
      // The request has begun, so the connection is not idle: closing lets it finish.
      setTimeout(() => {
        between();
        socket.write('Connection: close\r\n\r\n');
      }, 50);
    });
  });
}

describe('health and readiness', () => {
  let herald: TestHerald;

  beforeAll(async () => {
    herald = await startTestHerald({ setup: false });
  });
  afterAll(async () => {
    await herald.close(true);
  });

  it('/healthz answers 200 without a login, not to be cached', async () => {
    const res = await fetch(`${herald.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz answers 200 once started, with nothing but its status', async () => {
    const res = await fetch(`${herald.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });

  it('both are behind the host allow-list like every route', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const res = await rawRequest(herald.server.port, {
        path,
        headers: { Host: `rebound.example:${herald.server.port}` },
      });
      expect(res.status, path).toBe(421);
      expect(JSON.stringify(res.body)).not.toContain('ready');
    }
  });

  it('only GET (and HEAD) are answered', async () => {
    const head = await fetch(`${herald.url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const post = await fetch(`${herald.url}/readyz`, { method: 'POST' });
    expect(post.status).toBe(404);
  });
});

describe('readiness while shutting down', () => {
  it('/readyz answers 503 to a request that arrives while the server closes', async () => {
    const herald = await startTestHerald({ setup: false });
    let closed: Promise<void> | undefined;
    const answer = await requestAcross(herald.server.port, '/readyz', () => {
      closed = herald.server.close();
    });
    await closed;
    rmSync(herald.dataDir, { recursive: true, force: true });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
    expect(answer).toContain('{"status":"not ready","reason":"shutting down"}');
  });
});

describe('Readiness', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function database() {
    const dir = mkdtempSync(join(tmpdir(), 'herald-ready-'));
    dirs.push(dir);
    const db = await openDatabase(join(dir, 'herald.db'));
    initModels(db.sequelize);
    await migrate(db.sequelize);
    return db;
  }

  it('is not ready while starting, ready after, and not ready once closing', async () => {
    const db = await database();
    const readiness = new Readiness(db.read);
    expect(await readiness.check()).toEqual({ ready: false, reason: 'starting' });
    readiness.ready();
    expect(await readiness.check()).toEqual({ ready: true });
    readiness.closing();
    // Closing is final: a late ready() (a start racing a stop) does not undo it.
    readiness.ready();
    expect(await readiness.check()).toEqual({ ready: false, reason: 'shutting down' });
    await db.close();
  });

  it('is not ready when the read connection no longer answers, and says only that', async () => {
    const db = await database();
    const readiness = new Readiness(db.read);
    readiness.ready();
    await db.close();
    expect(await readiness.check()).toEqual({ ready: false, reason: 'database unavailable' });
  });
});
