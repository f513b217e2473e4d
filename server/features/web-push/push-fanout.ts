import { QueryTypes, type Sequelize } from 'sequelize';

import { DEFAULT_PRIORITY, parsePriority } from '../../../contract/priority';
import { noMentions } from '../../channels/channel-adapter';
import { dbTime } from '../../db/history/history-search';
import { Delivery } from '../../db/models/delivery';
import type { WriteLock, WriteTx } from '../../db/writer';
import type { HeraldEvents, HostedMessageEvent } from '../../events';
import type { Clock } from '../../lib/clock';
import { errorMessage } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import type { PushFilter } from '../../../contract/console/push';
import { topicOf } from './push-payload';
import { mayReadMessage, type MessageSource } from './push-rights';

const log = createLogger('web-push');

/** How far back recover() looks for messages whose pushes a stop left unplanned. */
export const RECOVER_WITHIN_MS = 60 * 60_000;

/** The delivery kind a push is recorded under (`deliveries.channel_type`). */
export const WEB_PUSH_KIND = 'web-push';

/** A hosted message with what its pushes are planned from: its send and that send's source. */
interface MessageContext {
  send_id: number;
  instance_id: number | null;
  channel_id: number;
  task_id: number | null;
  template_id: number | null;
  dedup_key: string | null;
  priority: number | null;
}

interface Candidate {
  id: number;
  filter: string;
  device_name: string;
  username: string;
  role: string;
  disabled: boolean | number;
}

/** Whether a subscription's filter lets a message of `source` and `priority` through. */
export function filterAllows(filter: PushFilter, source: MessageSource, priority: number): boolean {
  if (priority < filter.minPriority) return false;
  if (source.templateId !== null) {
    return filter.templates === 'all' || filter.templates.includes(source.templateId);
  }
  if (source.taskId !== null) {
    return filter.tasks === 'all' || filter.tasks.includes(source.taskId);
  }
  return false;
}

export interface PushFanoutDeps {
  sequelize: Sequelize;
  writeLock: WriteLock;
  events: HeraldEvents;
  clock: Clock;
  /** Told when pushes were queued, so they go out now rather than at the next look. */
  wake(): void;
}

/**
 * Plans the pushes of each new hosted message: one delivery per subscription whose owner may
 * read it and whose filter lets it through, added to the send that stored the message
 * (docs/architecture.md "Web Push"). It listens to the `message` event, which comes after the
 * message is committed; on PostgreSQL every process hears every message, and `push_fanouts`
 * lets only the first plan it.
 */
export class PushFanout {
  private readonly onMessage = (m: HostedMessageEvent) => {
    this.plan(m.id).catch((err) =>
      log.warn(`the pushes of hosted message ${m.id} could not be planned: ${errorMessage(err)}`),
    );
  };

  constructor(private readonly deps: PushFanoutDeps) {}

  start(): void {
    this.deps.events.on('message', this.onMessage);
  }

  stop(): void {
    this.deps.events.off('message', this.onMessage);
  }

  /**
   * Plans what a stop left unplanned: a message is planned after its commit, in a write of its
   * own, so a process that stopped in between (a crash, a kill) committed messages whose pushes
   * were never queued. At start, every message of the last `withinMs` without a claim in
   * `push_fanouts` is planned now; older ones are left, as news too old to buzz a phone for.
   * Answers how many messages were planned.
   */
  async recover(withinMs = RECOVER_WITHIN_MS): Promise<number> {
    const { sequelize, clock } = this.deps;
    if (!(await this.anySubscription())) return 0;
    const since = new Date(clock.now() - withinMs);
    const unplanned = await sequelize.query<{ id: number }>(
      `SELECT m.id FROM hosted_messages m
         LEFT JOIN push_fanouts f ON f.message_id = m.id
        WHERE f.message_id IS NULL AND m.delivery_id IS NOT NULL AND m.created_at >= :since
        ORDER BY m.id`,
      { type: QueryTypes.SELECT, replacements: { since: dbTime(since) } },
    );
    for (const { id } of unplanned) await this.plan(id);
    if (unplanned.length > 0) {
      log.info(`planned the pushes of ${unplanned.length} hosted messages a stop left unplanned`);
    }
    return unplanned.length;
  }

  /** Most installations have no subscription: one indexed look, no join, before any work. */
  private async anySubscription(): Promise<boolean> {
    const rows = await this.deps.sequelize.query('SELECT id FROM push_subscriptions LIMIT 1', {
      type: QueryTypes.SELECT,
    });
    return rows.length > 0;
  }

  /** Queues the pushes of hosted message `messageId`; answers their delivery ids. */
  async plan(messageId: number): Promise<number[]> {
    const { sequelize } = this.deps;
    if (!(await this.anySubscription())) return [];
    const [context] = await sequelize.query<MessageContext & { title: string; url: string | null }>(
      `SELECT d.send_id, d.instance_id, d.channel_id, s.task_id, s.template_id, s.dedup_key,
              m.priority, m.title, m.url
         FROM hosted_messages m
         JOIN deliveries d ON d.id = m.delivery_id
         JOIN sends s ON s.id = d.send_id
        WHERE m.id = :messageId`,
      { type: QueryTypes.SELECT, replacements: { messageId } },
    );
    // Stored by no send (nothing to add a delivery to), or deleted since.
    if (!context) return [];
    const source: MessageSource = { taskId: context.task_id, templateId: context.template_id };
    const priority = parsePriority(context.priority) ?? DEFAULT_PRIORITY;
    const candidates = await sequelize.query<Candidate>(
      `SELECT p.id, p.filter, p.device_name, u.username, u.role, u.disabled
         FROM push_subscriptions p JOIN users u ON u.id = p.user_id
        ORDER BY p.id`,
      { type: QueryTypes.SELECT },
    );
    const chosen = candidates.filter(
      (c) =>
        mayReadMessage({ role: c.role, disabled: Boolean(c.disabled) }, source) &&
        filterAllows(JSON.parse(c.filter) as PushFilter, source, priority),
    );
    const topic = topicOf(
      context.template_id !== null ? `template:${context.template_id}` : `task:${context.task_id}`,
      context.dedup_key,
    );
    const ids = await this.deps.writeLock.run((tx) =>
      this.store(tx, messageId, context, chosen, topic),
    );
    if (ids.length === 0) return ids;
    this.deps.events.emit('send', { id: context.send_id, status: 'pending' });
    for (const id of ids) {
      this.deps.events.emit('delivery', { id, sendId: context.send_id, status: 'queued' });
    }
    this.deps.wake();
    return ids;
  }

  private async store(
    { sql, transaction }: WriteTx,
    messageId: number,
    context: MessageContext & { title: string; url: string | null },
    chosen: Candidate[],
    topic: string,
  ): Promise<number[]> {
    const { sequelize, clock } = this.deps;
    const claimed = await sql.run(
      `INSERT INTO push_fanouts (message_id) VALUES (${sql.dialect === 'postgres' ? '$1' : '?'})
         ON CONFLICT DO NOTHING`,
      [messageId],
    );
    // Claimed even when nobody is to be pushed: the claim is also what says the message was
    // planned, which recover() relies on after a stop between a message's commit and its plan.
    if (claimed.changes === 0 || chosen.length === 0) return [];
    const now = clock.now();
    const ids: number[] = [];
    for (const c of chosen) {
      const delivery = await Delivery.create(
        {
          sendId: context.send_id,
          instanceId: context.instance_id,
          channelId: context.channel_id,
          channelType: WEB_PUSH_KIND,
          contentType: 'text',
          // What the send log shows as the recipient: whose device, and which.
          recipient: `${c.username} · ${c.device_name}`,
          title: context.title,
          content: `push of hosted message ${messageId}`,
          url: context.url,
          mentions: noMentions(),
          priority: context.priority,
          nextAttemptAt: now,
        },
        { transaction },
      );
      await sequelize.query(
        `INSERT INTO push_deliveries (delivery_id, subscription_id, message_id, topic)
           VALUES (:deliveryId, :subscriptionId, :messageId, :topic)`,
        {
          replacements: { deliveryId: delivery.id, subscriptionId: c.id, messageId, topic },
          transaction,
        },
      );
      ids.push(delivery.id);
    }
    // The send waits for its pushes as for any delivery; their outcomes roll it up again.
    await sequelize.query(
      `UPDATE sends SET status = 'pending', delivery_count = delivery_count + :n
        WHERE id = :sendId`,
      { replacements: { n: ids.length, sendId: context.send_id }, transaction },
    );
    return ids;
  }
}
