import { Op } from 'sequelize';

import {
  deliveriesPerChannel,
  latestFailedDeliveryIds,
  sendsPerDay,
  sendsPerSource,
} from '../../db/history/rollup-queries';
import { Channel, Delivery, Send } from '../../db/models';
import type { HeraldParts } from '../../parts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How many of a channel's latest tried deliveries its health looks at. */
const HEALTH_WINDOW = 5;

/** The dashboard's failure list: deliveries retrying, then failed, this many at most. */
const FAILURES_SHOWN = 10;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** What StatsService uses of the composed parts. */
export type StatsServiceDeps = Pick<HeraldParts, 'clock' | 'sequelize'> &
  Partial<Pick<HeraldParts, 'attachments'>>;

/** Numbers for the dashboard; every window is in whole UTC days ending today. */
export class StatsService {
  constructor(private readonly deps: StatsServiceDeps) {}

  async stats(days: number) {
    const now = this.deps.clock.now();
    const todayStart = Date.parse(`${isoDay(now)}T00:00:00.000Z`);
    const windowDays = Math.max(days, 30);
    const since = new Date(todayStart - (windowDays - 1) * DAY_MS);
    const perDay = await sendsPerDay(this.deps.sequelize, isoDay(since.getTime()));
    const byDay = new Map<
      string,
      {
        date: string;
        sent: number;
        partial: number;
        failed: number;
        pending: number;
        suppressed: number;
        collected: number;
      }
    >();
    for (let i = days - 1; i >= 0; i--) {
      const date = isoDay(todayStart - i * DAY_MS);
      byDay.set(date, {
        date,
        sent: 0,
        partial: 0,
        failed: 0,
        pending: 0,
        suppressed: 0,
        collected: 0,
      });
    }
    const totals = { today: 0, last7: 0, last30: 0 };
    for (const row of perDay) {
      const n = Number(row.n);
      const age = Math.round((todayStart - Date.parse(`${row.day}T00:00:00.000Z`)) / DAY_MS);
      if (age === 0) totals.today += n;
      if (age < 7) totals.last7 += n;
      if (age < 30) totals.last30 += n;
      const bucket = byDay.get(row.day);
      if (
        bucket &&
        (row.status === 'sent' ||
          row.status === 'partial' ||
          row.status === 'failed' ||
          row.status === 'pending' ||
          row.status === 'suppressed' ||
          row.status === 'collected')
      ) {
        bucket[row.status] += n;
      }
    }
    const sinceDays = new Date(todayStart - (days - 1) * DAY_MS);
    const perChannel = await deliveriesPerChannel(this.deps.sequelize, isoDay(sinceDays.getTime()));
    const channelNames = new Map(
      (
        await Channel.findAll({ where: { id: [...new Set(perChannel.map((r) => r.channel_id))] } })
      ).map((c) => [c.id, c]),
    );
    const byChannel = new Map<
      number,
      {
        channelId: number;
        name: string;
        type: string;
        sent: number;
        failed: number;
        retrying: number;
        pending: number;
      }
    >();
    let sentDeliveries = 0;
    let triedDeliveries = 0;
    for (const row of perChannel) {
      const c = channelNames.get(row.channel_id);
      const entry = byChannel.get(row.channel_id) ?? {
        channelId: row.channel_id,
        name: c?.name ?? `(deleted channel ${row.channel_id})`,
        type: c?.type ?? '',
        sent: 0,
        failed: 0,
        retrying: 0,
        pending: 0,
      };
      const n = Number(row.n);
      if (row.status === 'sent') {
        entry.sent += n;
        sentDeliveries += n;
        triedDeliveries += n;
      } else if (row.status === 'failed') {
        entry.failed += n;
        triedDeliveries += n;
      } else if (row.status === 'retrying') {
        // Failed at least once and not sent yet: a channel refusing connections must lower the
        // rate while its retries run, not only once they are used up.
        entry.retrying += n;
        triedDeliveries += n;
      } else entry.pending += n;
      byChannel.set(row.channel_id, entry);
    }
    const perSource = await sendsPerSource(this.deps.sequelize, isoDay(sinceDays.getTime()));
    const bySource = new Map<
      string,
      { api: string; id: number | null; name: string; sends: number; sent: number; failed: number }
    >();
    for (const row of perSource) {
      const id = row.api === 'v1' ? row.task_id : row.template_id;
      const key = `${row.api}:${id}`;
      const entry = bySource.get(key) ?? {
        api: row.api,
        id,
        name: row.source_name,
        sends: 0,
        sent: 0,
        failed: 0,
      };
      const n = Number(row.n);
      entry.sends += n;
      if (row.status === 'sent') entry.sent += n;
      if (row.status === 'failed' || row.status === 'partial') entry.failed += n;
      bySource.set(key, entry);
    }
    const retrying = await Delivery.count({ where: { status: 'retrying' } });
    // Deliveries waiting for a retry first (they still need someone), then the latest failed.
    const failures = [
      ...(await Delivery.findAll({
        where: { status: 'retrying' },
        order: [['updatedAt', 'DESC']],
        limit: FAILURES_SHOWN,
      })),
      ...(await Delivery.findAll({
        where: { id: await latestFailedDeliveryIds(this.deps.sequelize, FAILURES_SHOWN) },
        order: [['updatedAt', 'DESC']],
      })),
    ].slice(0, FAILURES_SHOWN);
    const failureSends = new Map(
      (
        await Send.findAll({
          where: { id: failures.map((f) => f.sendId) },
          attributes: ['id', 'title'],
        })
      ).map((s) => [s.id, s.title]),
    );
    const failureChannels = new Map(
      (await Channel.findAll({ where: { id: { [Op.in]: failures.map((f) => f.channelId) } } })).map(
        (c) => [c.id, c.name],
      ),
    );
    return {
      days: [...byDay.values()],
      totals: {
        ...totals,
        successRate: triedDeliveries === 0 ? null : sentDeliveries / triedDeliveries,
      },
      byChannel: [...byChannel.values()].sort(
        (a, b) => b.sent + b.failed + b.retrying - (a.sent + a.failed + a.retrying),
      ),
      bySource: [...bySource.values()].sort((a, b) => b.sends - a.sends),
      retrying,
      files: await this.files(),
      latestFailures: failures.map((f) => ({
        sendId: f.sendId,
        deliveryId: f.id,
        title: failureSends.get(f.sendId) ?? '',
        channelName: failureChannels.get(f.channelId) ?? `(deleted channel ${f.channelId})`,
        status: f.status === 'retrying' ? ('retrying' as const) : ('failed' as const),
        error: f.lastError,
        nextAttemptAt: f.status === 'retrying' ? new Date(Number(f.nextAttemptAt)) : null,
        at: f.updatedAt,
      })),
    };
  }

  /**
   * Per channel, its latest tried deliveries (by id, through the channel_id index): failing
   * when the newest failed. Channels are few, so one short read each.
   */
  private async files(): Promise<{ count: number; bytes: number }> {
    const usage = await this.deps.attachments?.usage();
    return { count: usage?.files ?? 0, bytes: usage?.bytes ?? 0 };
  }

  async channelHealth() {
    const channels = await Channel.findAll({ attributes: ['id'], order: [['id', 'ASC']] });
    const out = [];
    for (const { id } of channels) {
      const recent = await Delivery.findAll({
        where: { channelId: id, status: ['sent', 'retrying', 'failed'] },
        attributes: ['id', 'status', 'lastError', 'updatedAt'],
        order: [['id', 'DESC']],
        limit: HEALTH_WINDOW,
      });
      if (recent.length === 0) continue;
      const sentAt = recent.findIndex((d) => d.status === 'sent');
      const failures = sentAt === -1 ? recent.length : sentAt;
      out.push({
        channelId: id,
        state: failures > 0 ? ('failing' as const) : ('ok' as const),
        failures,
        lastError: failures > 0 ? recent[0].lastError : null,
        at: recent[0].updatedAt,
      });
    }
    return out;
  }
}
