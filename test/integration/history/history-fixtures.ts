import { QueryTypes, type Sequelize } from 'sequelize';

import { noMentions } from '../../../server/channels/channel-adapter';
import { Delivery, HostedMessage, Send } from '../../../server/db/models';
import type { TestHerald } from '../../helpers/herald';

/** Mixed Chinese/English texts: case differences, words at the very start and end of a column,
 * two-character titles, LIKE and FTS5 syntax characters. */
export const TEXTS: Array<[string, string]> = [
  ['告警', '数据库延迟超过 500 ms'],
  ['数据库延迟告警', 'db-3 latency high, 请检查'],
  ['Nightly Backup completed', 'backup of /var/lib took 3 min'],
  ['部署完成', 'Deploy v1.2 到生产环境 成功'],
  ['BACKUP FAILED', '磁盘空间不足，备份失败'],
  ['证书即将过期', 'certificate expires in 7 days 告'],
  ['CPU 100% on web-1', 'load_avg 12.5; 100% busy'],
  ['订单 42 支付成功', '用户 "alice" 支付 ¥99'],
  ['db', 'ok'],
  ['警告', '告 警 are separate words here'],
  ['Queue backlog', 'queue a_b has 1,234 items (NEAR(x) OR y*)'],
  ['数据库', '延迟'],
  ['Ünïcödé ÄÖÜ', 'straße'],
  ['x', '部署'],
  ['Partial 部署 rollout', 'rolled back: Backup restored'],
];

export const QUERIES = [
  // 1 character
  '告',
  'a',
  'B',
  '%',
  '_',
  '"',
  // 2 characters
  '告警',
  '部署',
  '延迟',
  'db',
  'DB',
  'ok',
  'OK',
  '0%',
  'a_',
  '告 ',
  ' 告',
  // 3 characters and more
  '数据库延迟',
  '数据库',
  'backup',
  'BACKUP',
  'Backup completed',
  '100%',
  'a_b',
  '"alice"',
  'NEAR(x)',
  'OR y*',
  'y*',
  '1,234',
  'straße',
  'ÄÖÜ',
  'nothing-matches-this',
  '告 警 are',
];

export async function likeScan(
  sequelize: Sequelize,
  table: 'hosted_messages' | 'sends',
  q: string,
): Promise<number[]> {
  const columns = table === 'sends' ? ['title', 'text', 'html', 'markdown'] : ['title', 'content'];
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  // SQLite's LIKE ignores the case of ASCII letters; PostgreSQL's ILIKE is the same scan there.
  const like = sequelize.getDialect() === 'postgres' ? 'ILIKE' : 'LIKE';
  const rows = await sequelize.query<{ id: number }>(
    `SELECT id FROM ${table} WHERE ${columns.map((c) => `${c} ${like} :p ESCAPE '\\'`).join(' OR ')}
     ORDER BY id DESC`,
    { type: QueryTypes.SELECT, replacements: { p: pattern } },
  );
  return rows.map((r) => r.id);
}

/** A DATE column's UTC day as 'YYYY-MM-DD', in the database's own SQL. */
export function dayOf(sequelize: Sequelize, column: string): string {
  return sequelize.getDialect() === 'postgres'
    ? `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
    : `substr(${column}, 1, 10)`;
}

export async function insertMessages(herald: TestHerald, texts: Array<[string, string]>) {
  await herald.server.ctx.writeLock.run(() =>
    HostedMessage.bulkCreate(
      texts.map(([title, content]) => ({
        channelId: null,
        deliveryId: null,
        title,
        content,
        format: 'text' as const,
        url: null,
      })),
    ),
  );
}

/** Sends spread their text over text, html and markdown, the way templates fill them. */
export async function insertSends(herald: TestHerald, texts: Array<[string, string]>) {
  await herald.server.ctx.writeLock.run(() =>
    Send.bulkCreate(
      texts.map(([title, body], i) => ({
        api: i % 2 === 0 ? ('v1' as const) : ('v2' as const),
        taskId: i % 2 === 0 ? 1 : null,
        templateId: i % 2 === 0 ? null : 2,
        sourceName: i % 2 === 0 ? 'task one' : 'template two',
        title,
        text: i % 3 === 0 ? body : null,
        html: i % 3 === 1 ? `<p>${body}</p>` : null,
        markdown: i % 3 === 2 ? `**${body}**` : null,
        url: null,
        request: {},
      })),
    ),
  );
}

export async function insertDeliveries(
  herald: TestHerald,
  sendId: number,
  statuses: Array<Delivery['status']>,
) {
  return herald.server.ctx.writeLock.run(() =>
    Delivery.bulkCreate(
      statuses.map((status) => ({
        sendId,
        instanceId: null,
        channelId: 7,
        channelType: 'webhook',
        contentType: 'text' as const,
        recipient: null,
        title: 't',
        content: 'c',
        url: null,
        mentions: noMentions(),
        status,
        nextAttemptAt: 0,
      })),
    ),
  );
}

/** Every id of a console list, page by page (newest first). */
export async function listAll(herald: TestHerald, path: string): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const data = await herald.console.ok('GET', `${path}${sep}page=${page}&pageSize=100`);
    ids.push(...data.items.map((m: { id: number }) => m.id));
    if (data.items.length < 100) return ids;
  }
}
