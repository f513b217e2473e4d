/**
 * History benchmark: console reads over a data folder holding 10k, 100k and 1M sends and hosted
 * messages. Rows go straight into SQLite (multi-row INSERTs in large transactions, the triggers
 * of the history index firing as they would in Herald); every read then goes through the
 * console HTTP API of a real Herald started on that folder. Prints the median of several
 * requests per read and size; the bar is 100 ms at 1M. Then the audit log: 1M entries, and the
 * newest 50 listed through its service (whole, by user, by action); the bar is 50 ms.
 *
 *   npm run bench:history [-- --sizes 10000,100000,1000000 --repeat 5]
 *   npm run bench:history -- --audit-only [--audit-rows 1000000]
 *   npm run bench -- --history
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import sqlite3 from 'sqlite3';

import { startTestHerald, type TestHerald } from '../test/helpers/herald';
import { median } from './bench/shared';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--history'),
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    repeat: { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
    'audit-rows': { type: 'string', default: '1000000' },
    'audit-only': { type: 'boolean', default: false },
  },
});
const sizes = values.sizes.split(',').map(Number);
const repeat = Number(values.repeat);

/** Words no generated text contains: each is put into exactly one row. */
const UNIQUE_MESSAGE_WORD = 'quizzicalwombat';
const UNIQUE_SEND_WORD = 'flibbertigibbet';

const zhWords = [
  '告警',
  '部署',
  '数据库',
  '延迟',
  '服务器',
  '磁盘',
  '内存',
  '网络',
  '恢复',
  '成功',
  '失败',
  '备份',
  '任务',
  '完成',
  '订单',
  '支付',
  '异常',
  '重启',
  '集群',
  '监控',
  '用户',
  '登录',
  '超时',
  '证书',
  '过期',
  '流量',
  '峰值',
  '节点',
  '同步',
  '队列',
  '积压',
];
const enWords = [
  'backup',
  'deploy',
  'latency',
  'disk',
  'cpu',
  'memory',
  'error',
  'warning',
  'service',
  'restart',
  'completed',
  'failed',
  'nightly',
  'job',
  'host',
  'cluster',
  'queue',
  'timeout',
  'certificate',
  'expired',
  'traffic',
  'order',
  'payment',
  'login',
  'sync',
  'node',
  'release',
];
const titles = [
  (r: Rng) => `[生产] ${r.pick(['数据库延迟', '磁盘空间', '内存使用率'])}告警 db-${r.int(40)}`,
  (r: Rng) =>
    `Nightly ${r.pick(['backup', 'sync', 'report'])} ${r.pick(['completed', 'failed'])} on host-${r.int(90)}`,
  (r: Rng) => `部署完成: ${r.pick(['api', 'web', 'worker'])} v1.${r.int(30)}.${r.int(10)}`,
  (r: Rng) =>
    `${r.pick(['CPU', 'Disk', 'Queue'])} ${r.pick(['warning', 'alert'])} ${r.pick(zhWords)}`,
  (r: Rng) => `订单 ${r.int(100000)} ${r.pick(['支付成功', '支付失败', '已退款'])}`,
];

class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  next(): number {
    // xorshift32: fast, seeded, the same data every run.
    this.s ^= this.s << 13;
    this.s ^= this.s >>> 17;
    this.s ^= this.s << 5;
    return (this.s >>> 0) / 0x100000000;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
}

function sentence(r: Rng): string {
  const parts: string[] = [];
  const n = 6 + r.int(10);
  for (let i = 0; i < n; i++) {
    parts.push(r.next() < 0.5 ? r.pick(zhWords) : ` ${r.pick(enWords)} `);
  }
  return parts.join('').replace(/\s+/g, ' ').trim();
}

function content(r: Rng): string {
  const n = 1 + r.int(3);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(sentence(r));
  if (r.next() < 0.05) out.push(`数据库延迟 ${r.int(900)} ms, p99 ${r.int(3000)} ms`);
  return out.join('。');
}

const dbTime = (ms: number) =>
  `${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')} +00:00`;

function open(file: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(db)));
  });
}
const run = (db: sqlite3.Database, sql: string, params: unknown[] = []) =>
  new Promise<void>((resolve, reject) =>
    db.run(sql, params, (err) => (err ? reject(err) : resolve())),
  );
const get = <T>(db: sqlite3.Database, sql: string) =>
  new Promise<T>((resolve, reject) =>
    db.get(sql, (err, row) => (err ? reject(err) : resolve(row as T))),
  );

/** Adds rows until the folder holds `target` sends and hosted messages; ids grow with time. */
async function fill(dbFile: string, target: number, channelId: number) {
  const db = await open(dbFile);
  await run(db, 'PRAGMA synchronous = OFF');
  const { n } = await get<{ n: number }>(db, 'SELECT count(*) AS n FROM sends');
  const now = Date.now();
  const spanMs = 365 * 24 * 3600 * 1000;
  const r = new Rng(12345 + n);
  const rowsPerInsert = 500;
  const started = Date.now();
  await run(db, 'BEGIN');
  for (let i = n; i < target; i += rowsPerInsert) {
    const count = Math.min(rowsPerInsert, target - i);
    const msgs: unknown[] = [];
    const sends: unknown[] = [];
    for (let k = 0; k < count; k++) {
      const idx = i + k;
      const at = dbTime(now - spanMs + Math.floor((spanMs * idx) / sizes[sizes.length - 1]));
      const mTitle = r.pick(titles)(r);
      let mContent = content(r);
      if (idx === Math.floor(sizes[0] / 2)) mContent += ` ${UNIQUE_MESSAGE_WORD}`;
      msgs.push(channelId, mTitle, mContent, 'text', r.next() < 0.3 ? null : at, at, at);
      const sTitle = r.pick(titles)(r);
      let sText = content(r);
      if (idx === Math.floor(sizes[0] / 3)) sText += ` ${UNIQUE_SEND_WORD}`;
      const status = r.next() < 0.9 ? 'sent' : r.pick(['failed', 'partial']);
      const template = 1 + r.int(20);
      sends.push('v2', template, `template-${template}`, sTitle, sText, '{}', status, at, at);
    }
    const q = (cols: number) => `(${Array(cols).fill('?').join(',')})`;
    await run(
      db,
      `INSERT INTO hosted_messages (channel_id, title, content, format, read_at, created_at, updated_at)
       VALUES ${Array(count).fill(q(7)).join(',')}`,
      msgs,
    );
    await run(
      db,
      `INSERT INTO sends (api, template_id, source_name, title, text, request, status, delivery_count, created_at, updated_at)
       VALUES ${Array(count).fill('(?,?,?,?,?,?,?,1,?,?)').join(',')}`,
      sends,
    );
    await run(
      db,
      `INSERT INTO deliveries (send_id, channel_id, channel_type, content_type, title, content, mentions,
         status, attempts, next_attempt_at, created_at, updated_at)
       SELECT id, ${channelId}, 'hosted', 'text', title, '', '[]',
         CASE status WHEN 'sent' THEN 'sent' ELSE 'failed' END, 1, 0, created_at, updated_at
       FROM sends WHERE id > (SELECT coalesce(max(send_id), 0) FROM deliveries)`,
    );
    if ((i / rowsPerInsert) % 200 === 199) {
      await run(db, 'COMMIT');
      await run(db, 'BEGIN');
      process.stdout.write(`  filled ${i + count} of ${target}\r`);
    }
  }
  await run(db, 'COMMIT');
  await run(db, 'PRAGMA wal_checkpoint(TRUNCATE)');
  await new Promise<void>((resolve) => db.close(() => resolve()));
  const s = (Date.now() - started) / 1000;
  console.log(`  filled to ${target} sends + ${target} messages in ${s.toFixed(0)} s`);
}

const reads: Array<[string, string]> = [
  ['reader, first page', '/messages?page=1&pageSize=20'],
  // Read state is per person: the signed-in administrator's count, filter and read-all.
  ['reader, unread count', '/messages/unread-count'],
  ['reader, unread only', '/messages?unread=true&page=1&pageSize=20'],
  ['reader, unread only, priority first', '/messages?unread=true&sort=priority&pageSize=20'],
  ['reader search `backup`', '/messages?q=backup'],
  ['reader search, a word that occurs once', `/messages?q=${UNIQUE_MESSAGE_WORD}`],
  ['reader search `告警` (2 characters)', `/messages?q=${encodeURIComponent('告警')}`],
  ['reader search `数据库延迟` (5 characters)', `/messages?q=${encodeURIComponent('数据库延迟')}`],
  ['send log search, a word that occurs once', `/logs?q=${UNIQUE_SEND_WORD}`],
  ['send log search `部署`', `/logs?q=${encodeURIComponent('部署')}`],
  ['dashboard, 90 days', '/stats?days=90'],
];

async function measure(herald: TestHerald): Promise<Map<string, { ms: number; total: string }>> {
  const out = new Map<string, { ms: number; total: string }>();
  for (const [name, path] of reads) {
    await herald.console.ok('GET', path); // warm-up: page cache, statement cache
    const times: number[] = [];
    let total = '';
    for (let i = 0; i < repeat; i++) {
      const t0 = performance.now();
      const data = await herald.console.ok('GET', path);
      times.push(performance.now() - t0);
      if (data && typeof data.total === 'number')
        total = `${data.total}${data.totalIsCapped ? '+' : ''}`;
    }
    out.set(name, { ms: median(times), total });
  }
  return out;
}

/** Adds audit entries until there are `target`: 20 users, 12 actions, one a minute or so. */
async function fillAudit(dbFile: string, target: number) {
  const db = await open(dbFile);
  await run(db, 'PRAGMA synchronous = OFF');
  const { n } = await get<{ n: number }>(db, 'SELECT count(*) AS n FROM audit_entries');
  const actions = ['channel', 'task', 'template', 'schedule'].flatMap((k) =>
    ['create', 'update', 'delete'].map((a) => `${k}.${a}`),
  );
  const changes = JSON.stringify([{ field: 'name', before: 'old name', after: 'new name' }]);
  const now = Date.now();
  const r = new Rng(777 + n);
  const rowsPerInsert = 500;
  const started = Date.now();
  await run(db, 'BEGIN');
  for (let i = n; i < target; i += rowsPerInsert) {
    const count = Math.min(rowsPerInsert, target - i);
    const rows: unknown[] = [];
    for (let k = 0; k < count; k++) {
      const user = r.int(20);
      rows.push(
        now - (target - i - k) * 60_000,
        user + 1,
        `user-${user}`,
        '127.0.0.1',
        'Mozilla/5.0',
        r.pick(actions),
        'channel',
        String(1 + r.int(1000)),
        r.pick(titles)(r).slice(0, 60),
        changes,
      );
    }
    await run(
      db,
      `INSERT INTO audit_entries (at, user_id, username, ip, user_agent, action, target_type,
         target_id, target_name, changes)
       VALUES ${Array(count).fill('(?,?,?,?,?,?,?,?,?,?)').join(',')}`,
      rows,
    );
    if ((i / rowsPerInsert) % 200 === 199) {
      await run(db, 'COMMIT');
      await run(db, 'BEGIN');
      process.stdout.write(`  filled ${i + count} of ${target}\r`);
    }
  }
  await run(db, 'COMMIT');
  await run(db, 'PRAGMA wal_checkpoint(TRUNCATE)');
  await new Promise<void>((resolve) => db.close(() => resolve()));
  console.log(
    `  filled to ${target} audit entries in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}

/** The audit log's newest 50, through the service the console route calls. */
async function measureAudit(herald: TestHerald, rows: number) {
  const audit = herald.server.ctx.audit;
  const paging = { page: 1, pageSize: 50, offset: 0 };
  const lists: Array<[string, Parameters<typeof audit.list>[0]]> = [
    ['audit log, newest 50', {}],
    ['audit log, newest 50 of one user', { user: 'user-7' }],
    ['audit log, newest 50 of one action', { action: 'template.update' }],
  ];
  console.log(
    `\naudit log, ${rows.toLocaleString('en')} entries: median of ${repeat} lists (ms; total)\n`,
  );
  console.log('| Audit list | ms |');
  console.log('|---|---|');
  for (const [name, query] of lists) {
    await audit.list(query, paging);
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < repeat; i++) {
      const t0 = performance.now();
      total = (await audit.list(query, paging)).total;
      times.push(performance.now() - t0);
    }
    console.log(`| ${name} | ${median(times).toFixed(1)} (${total}) |`);
  }
}

async function benchAudit(dataDir: string) {
  const rows = Number(values['audit-rows']);
  console.log(`filling ${rows} audit entries …`);
  await fillAudit(join(dataDir, 'herald.db'), rows);
  const herald = await startTestHerald({ dataDir, startDispatcher: false });
  await measureAudit(herald, rows);
  await herald.close();
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-history-'));
  const dbFile = join(dataDir, 'herald.db');
  let herald = await startTestHerald({ dataDir, startDispatcher: false });
  const channel = await herald.createChannel('hosted');
  await herald.close();
  if (values['audit-only']) {
    await benchAudit(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
    return;
  }
  const results = new Map<number, Map<string, { ms: number; total: string }>>();
  for (const size of sizes) {
    console.log(`filling ${size} …`);
    await fill(dbFile, size, channel.id);
    herald = await startTestHerald({ dataDir, startDispatcher: false });
    results.set(size, await measure(herald));
    await herald.close();
  }
  console.log(`\nmedian of ${repeat} requests (ms; total found in brackets)\n`);
  const header = ['Console read', ...sizes.map((s) => s.toLocaleString('en'))];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const [name] of reads) {
    const cells = sizes.map((s) => {
      const r = results.get(s)!.get(name)!;
      return `${r.ms.toFixed(1)}${r.total ? ` (${r.total})` : ''}`;
    });
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
  await benchAudit(dataDir);
  if (values.keep) console.log(`\ndata kept in ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}

/** Settles when the benchmark is done; scripts/bench.ts awaits it for `--history`. */
export const finished = main().catch((err) => {
  console.error(err);
  process.exit(1);
});
