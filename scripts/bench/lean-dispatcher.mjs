/**
 * The floor for `npm run bench -- --only floor`: the least a durable dispatcher must do, to say
 * how far Herald's deliveries are from it. POST /send answers 200 only once the send and one
 * delivery per target are committed; 64 deliveries stay in flight, claimed with UPDATE …
 * RETURNING; every attempt and outcome is committed too. One write transaction per tick carries
 * all of it (the group commit). No auth, templates, search index or roll-ups.
 *
 *   node scripts/bench/lean-dispatcher.mjs --db FILE --targets URL,URL [--port N]
 *
 * Prints its port on stdout. A claim left by a killed process is taken again on start, so a
 * delivery in flight at the kill may arrive twice (at least once, as Herald).
 */
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { setImmediate, setInterval } from 'node:timers';
import { parseArgs } from 'node:util';

import Database from 'better-sqlite3';

const { values } = parseArgs({
  options: { db: { type: 'string' }, targets: { type: 'string' }, port: { type: 'string' } },
});
if (!values.db || !values.targets) throw new Error('--db FILE and --targets URL,URL are needed');
const targets = values.targets.split(',');
const IN_FLIGHT = 64;
const MAX_ATTEMPTS = 5;

const db = new Database(values.db);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  CREATE TABLE IF NOT EXISTS sends (id INTEGER PRIMARY KEY, body TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS deliveries (id INTEGER PRIMARY KEY, send_id INTEGER NOT NULL,
    target TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, due_at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS deliveries_pending ON deliveries (state, id);
  CREATE TABLE IF NOT EXISTS attempts (id INTEGER PRIMARY KEY, delivery_id INTEGER NOT NULL,
    at INTEGER NOT NULL, status INTEGER NOT NULL, ok INTEGER NOT NULL);
  UPDATE deliveries SET state = 'pending' WHERE state = 'claimed';
`);
const insertSend = db.prepare('INSERT INTO sends (body, at) VALUES (?, ?)');
const insertDelivery = db.prepare(
  "INSERT INTO deliveries (send_id, target, state, due_at) VALUES (?, ?, 'pending', ?)",
);
const insertAttempt = db.prepare(
  'INSERT INTO attempts (delivery_id, at, status, ok) VALUES (?, ?, ?, ?)',
);
const finish = db.prepare(
  `UPDATE deliveries SET state = CASE WHEN ? THEN 'done' WHEN attempts >= ${MAX_ATTEMPTS}
     THEN 'failed' ELSE 'pending' END, due_at = ? WHERE id = ?`,
);
const claim = db.prepare(
  `UPDATE deliveries SET state = 'claimed', attempts = attempts + 1 WHERE id IN (SELECT id
     FROM deliveries WHERE state = 'pending' AND due_at <= ? ORDER BY id LIMIT ?)
   RETURNING id, target, attempts, (SELECT body FROM sends WHERE sends.id = send_id) AS body`,
);

/** What waits for the next commit: accepted sends with their answers, finished attempts. */
let accepted = [];
let outcomes = [];
let inFlight = 0;
let scheduled = false;

const tick = db.transaction((now, sends, done) => {
  for (const s of sends) {
    const sendId = insertSend.run(s.body, now).lastInsertRowid;
    for (const target of targets) insertDelivery.run(sendId, target, now);
  }
  for (const o of done) {
    insertAttempt.run(o.id, o.at, o.status, o.ok ? 1 : 0);
    finish.run(o.ok ? 1 : 0, o.ok ? now : now + 100 * 2 ** o.attempt, o.id);
  }
  return inFlight < IN_FLIGHT ? claim.all(now, IN_FLIGHT - inFlight) : [];
});

function schedule() {
  if (scheduled) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    const sends = accepted;
    const done = outcomes;
    accepted = [];
    outcomes = [];
    const claimed = tick(Date.now(), sends, done);
    for (const s of sends) s.res.writeHead(200, { 'Content-Type': 'application/json' }).end(OK);
    for (const d of claimed) deliver(d);
  });
}

const OK = '{"code":200,"msg":"success"}';
const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });

function deliver(d) {
  inFlight += 1;
  let settled = false;
  const settle = (status) => {
    if (settled) return;
    settled = true;
    inFlight -= 1;
    const ok = status >= 200 && status < 300;
    outcomes.push({ id: d.id, at: Date.now(), status, ok, attempt: d.attempts });
    schedule();
  };
  const req = http.request(d.target, {
    method: 'POST',
    agent,
    headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(d.body) },
    timeout: 10_000,
  });
  req.on('response', (res) => res.resume().on('end', () => settle(res.statusCode ?? 0)));
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', () => settle(0));
  req.end(d.body);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/send') return res.writeHead(404).end();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString();
    try {
      JSON.parse(body);
    } catch {
      return res.writeHead(400).end('{"code":400,"msg":"the body is not JSON"}');
    }
    accepted.push({ body, res });
    schedule();
  });
});
server.keepAliveTimeout = 60_000;
// Retries fall due later than any tick something else starts.
setInterval(schedule, 100).unref();
server.listen(Number(values.port ?? 0), '127.0.0.1', () => {
  console.log(server.address().port);
  schedule();
});
process.on('SIGTERM', () => process.exit(0));
