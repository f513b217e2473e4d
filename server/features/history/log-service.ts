import { Op } from 'sequelize';

import {
  Channel,
  Delivery,
  DeliveryAttempt,
  Schedule,
  Send,
  Task,
  Template,
} from '../../db/models';
import type { SendLogStatus } from '../../../contract';
import type { SendStatus } from '../../db/models/send';
import { listSendIds } from '../../db/history/history-search';
import { notFound } from '../../lib/errors';
import { digestLinksOf } from '../digests/digest-links';
import { pageOf, type Paging } from '../../lib/paging';
import type { HeraldParts } from '../../parts';

export interface LogFilter {
  q?: string;
  api?: 'v1' | 'v2';
  taskId?: number;
  templateId?: number;
  status?: string;
  from?: Date;
  to?: Date;
}

interface DeliveryCounts {
  sent: number;
  failed: number;
  retrying: number;
  /** The latest error of a retrying or failed delivery. */
  lastError: string | null;
}

function logStatus(stored: SendStatus, counts: DeliveryCounts | undefined): SendLogStatus {
  return stored === 'pending' && (counts?.retrying ?? 0) > 0 ? 'retrying' : stored;
}

/**
 * Whether a task or template accepts its Message Nest credential (an imported one whose old
 * token, or old id as task_id, was turned on): only then can a new send show one. Imported
 * sources that keep theirs refused leave the column empty, so it is not shown for them.
 */
async function holdsMessageNestCredentials(): Promise<boolean> {
  const accepting = { where: { acceptLegacyToken: true }, attributes: ['id'] };
  return (await Task.findOne(accepting)) !== null || (await Template.findOne(accepting)) !== null;
}

/** What LogService uses of the composed parts. */
export type LogServiceDeps = Pick<HeraldParts, 'sequelize' | 'deliveries' | 'dispatcher'> &
  Partial<Pick<HeraldParts, 'attachments'>>;

export class LogService {
  constructor(private readonly deps: LogServiceDeps) {}

  async list(filter: LogFilter, paging: Paging) {
    const page = await listSendIds(this.deps.sequelize, filter, {
      limit: paging.pageSize,
      offset: paging.offset,
    });
    const rows = await Send.findAll({ where: { id: page.ids }, order: [['id', 'DESC']] });
    const counts = await this.deliveryCounts(rows.map((s) => s.id));
    return {
      ...pageOf(
        rows.map((s) => this.toDto(s, counts.get(s.id))),
        page.total,
        paging,
      ),
      totalIsCapped: page.totalIsCapped,
      messageNestCredentials: await holdsMessageNestCredentials(),
    };
  }

  /** Per send: its deliveries sent, failed and retrying, and its latest delivery error. */
  private async deliveryCounts(sendIds: number[]) {
    const out = new Map<number, DeliveryCounts>();
    for (const [id, c] of await this.deps.deliveries.countsBySend(sendIds)) {
      out.set(id, {
        sent: c.sent ?? 0,
        failed: c.failed ?? 0,
        retrying: c.retrying ?? 0,
        lastError: null,
      });
    }
    // Through the send_id index, a page's failing deliveries only; the latest wins.
    const failing = await Delivery.findAll({
      where: { sendId: sendIds, status: ['retrying', 'failed'], lastError: { [Op.ne]: null } },
      attributes: ['sendId', 'lastError', 'updatedAt', 'id'],
      order: [
        ['updatedAt', 'ASC'],
        ['id', 'ASC'],
      ],
    });
    for (const d of failing) {
      const c = out.get(d.sendId);
      if (c) c.lastError = d.lastError;
    }
    return out;
  }

  toDto(s: Send, counts: DeliveryCounts | undefined) {
    return {
      id: s.id,
      api: s.api,
      taskId: s.taskId,
      templateId: s.templateId,
      sourceName: s.sourceName,
      scheduleId: s.scheduleId ?? null,
      title: s.title,
      // Stored as pending until every delivery is done: a failure waiting for its retry is
      // named, so a broken channel does not look like a slow one.
      status: logStatus(s.status, counts),
      lastError: counts?.lastError ?? null,
      warnings: s.warnings ?? [],
      deliveryCount: s.deliveryCount,
      /** token, legacy_token, task_id or legacy_task_id; null on sends from before it was recorded. */
      credential: s.credential ?? null,
      sentCount: counts?.sent ?? 0,
      failedCount: counts?.failed ?? 0,
      priority: s.priority ?? null,
      dedupKey: s.dedupKey ?? null,
      suppressedBy: s.suppressedBy ?? null,
      suppressedCount: s.suppressedCount ?? 0,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
    };
  }

  async detail(id: number) {
    const send = await Send.findByPk(id);
    if (!send) throw notFound(`send ${id} does not exist`);
    const deliveries = await Delivery.findAll({ where: { sendId: id }, order: [['id', 'ASC']] });
    const attempts = await DeliveryAttempt.findAll({
      where: { deliveryId: deliveries.map((d) => d.id) },
      order: [['id', 'ASC']],
    });
    const channels = new Map(
      (await Channel.findAll({ where: { id: deliveries.map((d) => d.channelId) } })).map((c) => [
        c.id,
        c,
      ]),
    );
    const counts = await this.deliveryCounts([id]);
    const schedule = send.scheduleId ? await Schedule.findByPk(send.scheduleId) : null;
    const files = (await this.deps.attachments?.ofSend(id)) ?? [];
    return {
      ...this.toDto(send, counts.get(id)),
      // A deleted schedule keeps its id on the send, without a name.
      scheduleName: schedule?.name ?? null,
      text: send.text,
      html: send.html,
      markdown: send.markdown,
      url: send.url,
      request: send.request,
      attachments: files.map((f) => ({ name: f.filename, type: f.mime, size: f.size, url: f.url })),
      ...(await digestLinksOf(this.deps.sequelize, id)),
      deliveries: deliveries.map((d) => ({
        ...this.deliveryDto(d),
        channelName: channels.get(d.channelId)?.name ?? `(deleted channel ${d.channelId})`,
        attemptLog: attempts
          .filter((a) => a.deliveryId === d.id)
          .map((a) => ({
            attempt: a.attempt,
            outcome: a.outcome,
            error: a.error,
            reply: a.reply,
            durationMs: a.durationMs,
            startedAt: a.startedAt,
          })),
      })),
    };
  }

  deliveryDto(d: Delivery) {
    return {
      id: d.id,
      sendId: d.sendId,
      instanceId: d.instanceId,
      channelId: d.channelId,
      channelType: d.channelType,
      contentType: d.contentType,
      recipient: d.recipient,
      status: d.status,
      priority: d.priority ?? null,
      repeats: d.repeats ?? 0,
      attempts: d.attempts,
      nextAttemptAt: ['queued', 'retrying'].includes(d.status)
        ? new Date(Number(d.nextAttemptAt))
        : null,
      lastError: d.lastError,
      reply: d.reply,
      sentAt: d.sentAt,
      createdAt: d.createdAt,
    };
  }

  /**
   * Puts a failed or waiting delivery back in the queue now, with a fresh attempt budget; the
   * check and the write are one write job, so nothing can change the delivery in between.
   */
  async retry(id: number) {
    await this.deps.deliveries.requeue(id);
    this.deps.dispatcher.wake();
    const delivery = await Delivery.findByPk(id);
    if (!delivery) throw notFound(`delivery ${id} does not exist`);
    return this.deliveryDto(delivery);
  }
}
