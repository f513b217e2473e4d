import { QueryTypes } from 'sequelize';

import { noMentions } from '../../channels/channel-adapter';
import { crashPoint } from '../../lib/crash-point';
import { DueLoop } from '../../lib/due-loop';
import { errorMessage } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import { insertDeliveries, insertSends } from '../../queue/store/hot-path';
import { publicBaseUrl } from '../hosted/share-links';
import { planDeliveries } from '../sending/delivery-plan';
import { acceptInputOf } from '../sending/send-rows';
import { SourceLookup } from '../sending/source-lookup';
import { digestBodies, digestTitle } from './digest-message';
import type { DigestRules } from './digest-rules';
import type { DigestServiceDeps } from './digest-service';
import { carriedSends, claimDigest, setDigestSend, type DigestRow } from './digest-store';

const log = createLogger('digests');

/** Upper bound between two looks at the table (another process's digests, a lost timer). */
const MAX_SLEEP_MS = 30_000;
/** At least this long between looks: a digest that fails to close is not retried in a spin. */
const MIN_SLEEP_MS = 1_000;
/** Digests closed per look; the rest follow at once. */
const BATCH = 50;

/**
 * Closes each digest once its window has ended (docs/architecture.md "Digests"): a loop like
 * the scheduler's, woken by a collect and otherwise sleeping until the next open digest's end.
 * Each digest is claimed and its message stored in one transaction, so it is delivered once,
 * whole, here or in another process sharing the database.
 */
export class DigestCloser {
  private readonly lookup: SourceLookup;
  private readonly loop: DueLoop;

  constructor(
    private readonly deps: DigestServiceDeps,
    private readonly rules: DigestRules,
  ) {
    this.lookup = new SourceLookup(deps);
    this.loop = new DueLoop(deps.clock, {
      what: 'closing due digests',
      batch: BATCH,
      maxSleepMs: MAX_SLEEP_MS,
      minSleepMs: MIN_SLEEP_MS,
      report: (message) => log.error(message),
      tick: () => this.tick(),
      nextDue: async () => {
        const [row] = await this.deps.sequelize.query<{ next: number | string | null }>(
          `SELECT min(window_until) AS next FROM digests WHERE status = 'open'`,
          { type: QueryTypes.SELECT },
        );
        return row?.next == null ? null : Number(row.next);
      },
    });
  }

  /** Closes what came due while Herald was closed, then keeps time. */
  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** A digest opened or time may have passed: look now. */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Closes every digest whose window has ended by the clock's now; answers how many it looked
   * at. Safe beside another tick or another process: each digest is claimed once. Tests that
   * move a manual clock call it.
   */
  async tick(): Promise<number> {
    const due = await this.deps.sequelize.query<{
      id: number | string;
      scope: string;
      digest_key: string;
      task_id: number | string | null;
      template_id: number | string | null;
      instance_id: number | string | null;
      window_until: number | string;
    }>(
      `SELECT id, scope, digest_key, task_id, template_id, instance_id, window_until FROM digests
       WHERE status = 'open' AND window_until <= :now ORDER BY window_until, id LIMIT ${BATCH}`,
      { replacements: { now: this.deps.clock.now() }, type: QueryTypes.SELECT },
    );
    for (const r of due) {
      const row: DigestRow = {
        id: Number(r.id),
        scope: r.scope,
        key: r.digest_key,
        taskId: r.task_id === null ? null : Number(r.task_id),
        templateId: r.template_id === null ? null : Number(r.template_id),
        instanceId: r.instance_id === null ? null : Number(r.instance_id),
        until: Number(r.window_until),
      };
      try {
        await this.close(row);
      } catch (err) {
        log.error(`digest ${row.id} was not closed: ${errorMessage(err)}`);
      }
    }
    return due.length;
  }

  /**
   * Claims the digest and stores its send and deliveries in the same transaction, so it is
   * delivered whole or (after a crash before the commit) not yet: the next tick, here or in
   * another process, finds it open again. Answers the digest's send id, or null when another
   * claim won or there was nothing to send to.
   */
  async close(row: DigestRow): Promise<number | null> {
    const source =
      row.taskId !== null
        ? await this.lookup.task(row.taskId)
        : await this.lookup.template(row.templateId ?? 0);
    // An instance's digest goes to that instance alone (if it is still enabled).
    const targets = source.targets.enabled.filter(
      (t) => row.instanceId === null || t.instance.id === row.instanceId,
    );
    const rule =
      row.instanceId !== null
        ? await this.rules.get('instance', row.instanceId)
        : row.taskId !== null
          ? await this.rules.get('task', row.taskId)
          : await this.rules.get('template', row.templateId ?? 0);
    const sourceName =
      (source.source as { name?: string } | null)?.name ?? `${row.scope} (deleted)`;
    const base = publicBaseUrl(this.deps).replace(/\/+$/, '');
    const result = await this.deps.writeLock.run(
      async ({ sql }) => {
        const now = this.deps.clock.now();
        const wallNow = Date.now();
        if (!(await claimDigest(sql, row.id, now))) return null;
        const sends = await carriedSends(sql, row.id);
        if (sends.length === 0 || targets.length === 0) return { sendId: null };
        const recipients = [...new Set(sends.flatMap((s) => s.recipients))];
        const usable = targets.filter(
          (t) => !t.instance.dynamicRecipients || recipients.length > 0,
        );
        const content = (link: string) =>
          digestBodies({
            sourceName,
            key: row.key,
            sends,
            titleLimit: rule?.titleLimit ?? 20,
            link,
            timeZone: rule?.timezone ?? 'UTC',
          });
        const plan = (link: string) =>
          planDeliveries(usable, content(link), recipients, noMentions());
        const title = digestTitle({ sourceName, key: row.key, sends });
        const count = plan('').length;
        if (count === 0) return { sendId: null };
        const [sendId] = await insertSends(
          sql,
          [
            {
              api: row.taskId !== null ? 'v1' : 'v2',
              taskId: row.taskId,
              templateId: row.templateId,
              sourceName,
              title,
              text: null,
              html: null,
              markdown: null,
              url: null,
              request: { digest: { id: row.id, key: row.key, count: sends.length } },
              deliveryCount: count,
              scheduleId: null,
            },
          ],
          wallNow,
        );
        // The link names the digest's own send, whose log lists every send it carried.
        const link = `${base}/logs/${sendId}`;
        const bodies = content(link);
        const planned = plan(link);
        const input = acceptInputOf(
          {
            api: row.taskId !== null ? 'v1' : 'v2',
            taskId: row.taskId,
            templateId: row.templateId,
            sourceName,
            title,
            bodies,
            url: link,
            request: {},
            planned,
            credential: 'token',
            priority: null,
            dedup: null,
          },
          // Hosted deliveries go through the queue here, like every other channel's.
          true,
        );
        await insertDeliveries(
          sql,
          input.deliveries.map(({ storeOnAccept: _stored, ...d }) => ({
            ...d,
            sendId,
            nextAttemptAt: now,
          })),
          wallNow,
        );
        await sql.run(
          sql.dialect === 'postgres'
            ? 'UPDATE sends SET text = $2, html = $3, markdown = $4, url = $5 WHERE id = $1'
            : 'UPDATE sends SET text = ?2, html = ?3, markdown = ?4, url = ?5 WHERE id = ?1',
          [sendId, bodies.text ?? null, bodies.html ?? null, bodies.markdown ?? null, link],
        );
        await setDigestSend(sql, row.id, sendId);
        crashPoint('digest-before-commit');
        return { sendId };
      },
      { repeatable: true },
    );
    if (result === null) return null;
    if (result.sendId === null) {
      log.warn(
        `digest ${row.id} of ${row.scope} closed with nothing to send to (no enabled instance); its sends stay in the log as collected`,
      );
      return null;
    }
    this.deps.events.emit('send', { id: result.sendId, status: 'pending' });
    this.deps.dispatcher.wake();
    return result.sendId;
  }
}
