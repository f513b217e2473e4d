import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg, { type Pool } from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { KEY_FILE } from '../../../server/crypto/server-key';
import { passwordKeys, USER_POLICY } from '../../../server/domain/sign-in-throttle';
import { PostgresLoginThrottle, PostgresPacer } from '../../../server/db/postgres/shared-limits';
import {
  ADMIN,
  startTestHerald,
  type TestHerald,
  type TestHeraldOptions,
} from '../../helpers/herald';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { ManualClock } from '../../helpers/manual-clock';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';

/**
 * Two Heralds in this process on one PostgreSQL database, each with its own Writer, dispatcher,
 * HeraldEvents, event listener and shared-limits pool: for the pieces tested here they are two
 * processes. Each test would pass with one Herald, and fails with two when the piece it checks
 * lives in a process's memory. (Sequelize's models are module singletons, bound to the last
 * Herald started in a process, so what is written through them — idempotency keys, sessions,
 * schedules — is tested across real processes in multi-process.test.ts.)
 */
let database: { name: string; url: string };
let heralds: TestHerald[] = [];
let peers: HttpPeer[] = [];

beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(async () => {
  for (const h of heralds) await h.close(true);
  for (const p of peers) await p.close();
  heralds = [];
  peers = [];
  await dropTestDatabase(database.name);
});

/** A and B on the test's database, B with A's key (tokens sealed by one open on the other). */
async function pair(
  a: TestHeraldOptions = {},
  b: TestHeraldOptions = {},
): Promise<[TestHerald, TestHerald]> {
  const first = await startTestHerald({ databaseUrl: database.url, ...a });
  heralds.push(first);
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-test-'));
  copyFileSync(join(first.dataDir, KEY_FILE), join(dataDir, KEY_FILE));
  const second = await startTestHerald({ databaseUrl: database.url, dataDir, ...b });
  heralds.push(second);
  return [first, second];
}

async function pgQuery<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

async function peer(): Promise<HttpPeer> {
  const p = await startHttpPeer();
  peers.push(p);
  return p;
}

/** Reads a console event stream into `text` until `done(text)` or the stream ends. */
async function streamEvents(h: TestHerald) {
  const ac = new AbortController();
  const res = await fetch(`${h.url}/api/console/events`, {
    headers: { Cookie: h.console.cookie },
    signal: ac.signal,
  });
  const reader = res.body!.getReader();
  let text = '';
  let reading: Promise<void> | null = null;
  const more = async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended: ${text}`);
    text += new TextDecoder().decode(value);
  };
  return {
    get text() {
      return text;
    },
    async until(done: (text: string) => boolean) {
      while (!done(text)) {
        reading ??= more().finally(() => (reading = null));
        await reading;
      }
    },
    close: () => ac.abort(),
  };
}

/**
 * A pool of the test's own. A later test ends every connection of the database (the relay's
 * reconnect), and the database is dropped at the end: a connection ended under a pool that
 * nobody listens to would be an unhandled error.
 */
function quietPool(url: string): Pool {
  const pool = new pg.Pool({ connectionString: url, max: 5 });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

// One journey: its steps build on each other, so they run in order even when CI shuffles.
describe('several processes on one PostgreSQL database', { shuffle: false }, () => {
  it('pace a rate-limited channel together: concurrent takers get exactly its limit', async () => {
    // Two pools are two processes' connections; the same `now` for every taker, so only the
    // row lock decides who gets a slot.
    const pools = [1, 2].map(() => quietPool(database.url));
    const first = await startTestHerald({ databaseUrl: database.url }); // runs the migrations
    heralds.push(first);
    try {
      const pacers = pools.map((p) => new PostgresPacer(p));
      const limit = { key: 'dingtalk:robot', max: 5, perMs: 60_000 };
      const now = Date.parse('2026-11-23T12:00:00.000Z');
      const take = (at: number) =>
        Promise.all(
          Array.from({ length: 20 }, (_, i) => pacers[i % 2].reserve(limit, at + (i % 3))),
        );
      const waits = await take(now);
      expect(waits.filter((w) => w === 0)).toHaveLength(5);
      // The refused are told to wait until the first slot of the window frees, not longer:
      // that slot was taken at the latest at now + 2 (the takers' clocks spread over 3 ms), so
      // a taker at now + k waits at most 60,000 + 2 - k (60,001 is right for one at now + 1).
      waits.forEach((w, i) => expect(w).toBeLessThanOrEqual(60_000 + 2 - (i % 3)));
      // Still full a moment before the window moves; five more once it has.
      expect((await take(now + 59_000)).filter((w) => w === 0)).toHaveLength(0);
      expect((await take(now + 60_003)).filter((w) => w === 0)).toHaveLength(5);
      // Another robot has its own window.
      expect(await pacers[1].reserve({ ...limit, key: 'dingtalk:other' }, now)).toBe(0);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('let exactly the free tries of a guesser through, however many race on two processes', async () => {
    const pools = [1, 2].map(() => quietPool(database.url));
    heralds.push(await startTestHerald({ databaseUrl: database.url })); // runs the migrations
    try {
      const clock = new ManualClock(Date.parse('2026-11-23T12:00:00.000Z'));
      const throttles = pools.map((p) => new PostgresLoginThrottle(p, clock));
      const keys = passwordKeys('admin', '203.0.113.9');
      const waits = await Promise.all(
        Array.from({ length: 12 }, (_, i) => throttles[i % 2].begin(keys)),
      );
      // Five free failures for a username; the fifth already sets the first delay.
      expect(waits.filter((w) => w === 0)).toHaveLength(USER_POLICY.freeFailures);
      clock.advance(USER_POLICY.baseDelayMs);
      expect(await throttles[1].begin(keys)).toBe(0);
      await throttles[0].succeed(keys);
      expect(await throttles[1].begin(keys)).toBe(0);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('count the send API rate limit together', async () => {
    const settings = { rateLimitPerMinute: 3 };
    const [a, b] = await pair({ settings }, { settings });
    const channel = await a.createChannel('hosted');
    const { token } = await a.createTemplate({ text: 'limited' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    const codes: number[] = [];
    for (const h of [a, b, a, b, a, b]) codes.push((await h.sendV2({ token, title: 'x' })).status);
    expect(codes.filter((c) => c === 200)).toHaveLength(3);
    expect(codes.filter((c) => c === 429)).toHaveLength(3);
    // Another template keeps its own budget on either process.
    const other = await b.createTemplate({ text: 'other' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    expect((await a.sendV2({ token: other.token, title: 'y' })).status).toBe(200);
  });

  it('slow down one guesser of a password whichever process it asks', async () => {
    // Both clocks stand still: the throttle's waits cannot run out between two tries.
    const clock = new ManualClock(Date.parse('2026-11-23T12:00:00.000Z'));
    const [a, b] = await pair({ clock }, { clock });
    const login = (h: TestHerald, password: string) =>
      fetch(`${h.url}/api/console/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: ADMIN.username, password }),
      });
    // Five free tries for a username, spread over both processes.
    for (const h of [a, b, a, b, a]) expect((await login(h, 'wrong')).status).toBe(401);
    const refused = await login(b, 'wrong');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Even the right password waits out the delay the other process imposed.
    expect((await login(b, ADMIN.password)).status).toBe(429);
    clock.advance(2_000);
    expect((await login(b, ADMIN.password)).status).toBe(200);
    // Success forgets the failures for both.
    expect((await login(a, 'wrong')).status).toBe(401);
  });

  it('stream live events of the other process, each event once', async () => {
    // A delivers nothing: every delivery event on its stream comes from B.
    const [a, b] = await pair({ startDispatcher: false });
    const channel = await a.createChannel('hosted');
    const { token } = await a.createTemplate({ text: 'live' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    const onA = await streamEvents(a);
    const onB = await streamEvents(b);
    try {
      expect((await a.sendV2({ token, title: 'across' })).status).toBe(200);
      const complete = (t: string) =>
        t.includes('"title":"across"') &&
        /"status":"sent"\}\n\nevent: send|event: send\ndata: \{"id":\d+,"status":"sent"/.test(t);
      await onA.until(complete);
      await onB.until(complete);
      for (const stream of [onA, onB]) {
        expect(stream.text).toMatch(/event: message\ndata: \{"id":\d+,"title":"across"/);
        expect(stream.text).toMatch(
          /event: delivery\ndata: \{"id":\d+,"sendId":\d+,"status":"sent"\}/,
        );
        // Its own events are not echoed back by the database.
        expect(stream.text.match(/"title":"across"/g)).toHaveLength(1);
        expect(stream.text.match(/"status":"pending"/g)).toHaveLength(1);
      }
    } finally {
      onA.close();
      onB.close();
    }
  });

  it("stream a schedule's run on the other process", async () => {
    const [a, b] = await pair();
    const hosted = await a.createChannel('hosted');
    const { task } = await a.createTask('scheduled', [
      { channelId: hosted.id, contentType: 'text' },
    ]);
    const schedule = await a.console.ok('POST', '/schedules', {
      name: 'across',
      taskId: task.id,
      cron: '0 0 1 1 *',
      timezone: 'UTC',
      title: 'scheduled across',
      text: 'x',
    });
    const onB = await streamEvents(b);
    try {
      await a.console.ok('POST', `/schedules/${schedule.id}/run`);
      await onB.until((t) => t.includes(`event: schedule\ndata: {"id":${schedule.id}}`));
    } finally {
      onB.close();
    }
  });

  /** A hosted message stored by `a` through a V1 send to a hosted channel of its own. */
  async function hostedMessageOn(a: TestHerald, title: string): Promise<void> {
    const hosted = await a.createChannel('hosted');
    const { token } = await a.createTask(title, [{ channelId: hosted.id, contentType: 'text' }]);
    expect((await a.sendV1({ token, title, text: 'x' })).body.code).toBe(200);
  }

  it("stream a hosted message's deletion on the other process", async () => {
    const [a, b] = await pair();
    await hostedMessageOn(a, 'deleted across');
    const [message] = (await a.console.ok('GET', '/messages')).items;
    const onB = await streamEvents(b);
    try {
      await a.console.ok('DELETE', `/messages/${message.id}`);
      await onB.until((t) => t.includes(`event: messageDeleted\ndata: {"id":${message.id}}`));
    } finally {
      onB.close();
    }
  });

  it("stream retention's prune of hosted messages on the other process", async () => {
    const [a, b] = await pair();
    await hostedMessageOn(a, 'pruned across');
    await pgQuery(
      `UPDATE hosted_messages SET created_at = '2020-01-01T00:00:00Z' WHERE title = 'pruned across'`,
    );
    await a.console.ok('PUT', '/settings', { retention: { messagesDays: 30 } });
    const onB = await streamEvents(b);
    try {
      expect((await a.console.ok('POST', '/maintenance/prune')).deleted.hostedMessages).toBe(1);
      await onB.until((t) => /event: messagesPruned\ndata: \{"count":1,"before":"[^"]+"\}/.test(t));
    } finally {
      onB.close();
    }
  });

  it('take up settings the other process saved', async () => {
    const [a, b] = await pair();
    await a.console.ok('PUT', '/settings', { v1WaitMs: 4_321 });
    await b.waitFor(async () => (await b.console.ok('GET', '/settings')).v1WaitMs === 4_321);
  });

  it('hear the other process again after its listening connection was cut', async () => {
    const [a, b] = await pair();
    const listeners = async () =>
      (
        await pgQuery<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database()
             AND query = 'LISTEN herald_events'`,
        )
      ).map((r) => r.pid);
    const cut = await listeners();
    expect(cut).toHaveLength(2);
    await pgQuery('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [cut]);
    await b.waitFor(async () => {
      const now = await listeners();
      return now.length === 2 && now.every((pid) => !cut.includes(pid));
    });
    await a.console.ok('PUT', '/settings', { v1WaitMs: 5_432 });
    await b.waitFor(async () => (await b.console.ok('GET', '/settings')).v1WaitMs === 5_432);
  });

  it('answer a V1 send from the attempt another process recorded', async () => {
    const p = await peer();
    // First attempt fails; the retry comes only after 5 s, and A would wait 20 s: an answer
    // "retrying" is the first attempt as B recorded it, heard at once; only the fallback read at
    // the end of the wait would see "sent".
    const settings = { v1WaitMs: 20_000, retry: { baseDelayMs: 5_000, maxDelayMs: 5_000 } };
    const [a] = await pair({ startDispatcher: false, settings }, { settings });
    const channel = await a.createChannel('webhook', { url: p.url });
    const { token } = await a.createTask('v1-across', [
      { channelId: channel.id, contentType: 'text' },
    ]);
    p.script.push({ status: 503, body: 'busy' });
    const res = await a.sendV1({ token, title: 'waited', text: 'for B' });
    expect(res.body.data.status).toBe('retrying');
    expect(res.body.data.results[0].error).toMatch(/503/);
    expect(p.received).toHaveLength(1);
  });
});
