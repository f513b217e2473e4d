import { parsePriority } from '../../contract/priority';
import {
  noMentions,
  type AdapterRuntime,
  type MessageAttachment,
} from '../channels/channel-adapter';
import { DeliveryError } from '../channels/delivery-error';
import { adapterFor, isChannelType, type ChannelRegistry } from '../channels/registry';
import type { RetryPolicy } from '../config/settings-schema';
import type { ClaimedDelivery, OutcomeRecord } from './store/hot-path';
import type { Clock } from '../lib/clock';
import { errorMessage } from '../lib/errors';
import { nextAttemptAt } from './backoff';
import type { ChannelPacer } from './pacer';
import type { QuietDecision } from '../domain/quiet-decision';

/** An adapter that neither resolves nor rejects is cut off here and counted as a transient failure. */
const ATTEMPT_TIMEOUT_MS = 120_000;
/** How long a delivery waits when its channel's shared rate window cannot be taken. */
const PACING_UNAVAILABLE_WAIT_MS = 1_000;

export interface LoadedChannel {
  type: string;
  config: unknown;
}

/**
 * A kind of delivery that is not a channel's own: made on a channel's behalf and sent to
 * something the channel does not configure (a Web Push of a hosted message to one person's
 * browser). Keyed by the delivery's `channel_type`; it throws a DeliveryError to fail.
 */
export interface DeliveryKind {
  send(delivery: ClaimedDelivery): Promise<{ reply: string }>;
}

export interface AttemptDeps {
  registry: ChannelRegistry;
  /** Delivery kinds beside the channels' adapters, by the kind a delivery row names. */
  deliveryKinds?: ReadonlyMap<string, DeliveryKind>;
  runtime: AdapterRuntime;
  clock: Clock;
  pacer: ChannelPacer;
  retryPolicy(): RetryPolicy;
  loadChannel(id: number): Promise<LoadedChannel | null>;
  /**
   * The stored files of these ids, in their order (issue 43 §2): what a delivery of a send with
   * files hands its adapter on every try. Files already removed (expired) are left out.
   */
  loadAttachments?(ids: readonly string[]): Promise<MessageAttachment[]>;
  /**
   * The quiet-hours rules of a delivery's instance and channel (features/quiet-hours), asked at
   * every attempt so a rule changed after the send was accepted still counts.
   */
  quietHours?: {
    forDelivery(
      delivery: { id: number; channelId: number; priority: number | null },
      at: number,
    ): Promise<QuietDecision | null>;
  };
  random?: () => number;
}

/**
 * What one attempt came to: an outcome to record (with the channel's kind, for metrics), or
 * "not now": from the channel's rate limit (no reason), or from the adapter's
 * DeliveryError.deferred (its reason, shown as the delivery's lastError while it waits).
 */
export type AttemptRun =
  { outcome: OutcomeRecord; channelType: string | null } | { deferUntil: number; reason?: string };

/** Runs one claimed delivery through its channel's adapter; never throws. */
export async function runAttempt(
  delivery: ClaimedDelivery,
  deps: AttemptDeps,
): Promise<AttemptRun> {
  const startedAt = deps.clock.now();
  let channel: LoadedChannel | null = null;
  const finished = (
    outcome: OutcomeRecord['outcome'],
    error: string | null,
    reply: string | null,
    retryAt: number | null,
  ): AttemptRun => ({
    outcome: {
      id: delivery.id,
      lease: delivery.lease,
      status: outcome === 'sent' ? 'sent' : retryAt === null ? 'failed' : 'retrying',
      outcome,
      error,
      reply,
      startedAt,
      durationMs: deps.clock.now() - startedAt,
      retryAt,
    },
    channelType: channel?.type ?? null,
  });
  if (delivery.channelType !== undefined && !isChannelType(delivery.channelType)) {
    // A kind of its own (DeliveryKind): no channel to load and no pacing, the same timeout,
    // backoff and outcomes. A kind this process lacks fails, never falls through to the channel.
    channel = { type: delivery.channelType, config: null };
    const own = deps.deliveryKinds?.get(channel.type);
    if (!own)
      return finished('permanent', `this process cannot deliver "${channel.type}"`, null, null);
    try {
      const receipt = await withTimeout(own.send(delivery), ATTEMPT_TIMEOUT_MS);
      return finished('sent', null, receipt.reply, null);
    } catch (err) {
      return failure(
        err instanceof DeliveryError ? err : DeliveryError.transient(errorMessage(err)),
      );
    }
  }
  try {
    channel = await deps.loadChannel(delivery.channelId);
  } catch (err) {
    return failure(DeliveryError.transient(`loading the channel failed: ${errorMessage(err)}`));
  }
  const adapter = channel ? adapterFor(deps.registry, channel.type) : undefined;
  if (!channel || !adapter) {
    const why = channel ? `unknown channel kind "${channel.type}"` : 'the channel was deleted';
    return finished('permanent', why, null, null);
  }
  // Quiet hours come before the rate limit: a held delivery takes no place in its window.
  let quiet: QuietDecision | null = null;
  if (deps.quietHours) {
    try {
      quiet = await deps.quietHours.forDelivery(delivery, startedAt);
    } catch (err) {
      return failure(
        DeliveryError.transient(`reading the quiet-hours rules failed: ${errorMessage(err)}`),
      );
    }
  }
  if (quiet?.action === 'hold') {
    return { deferUntil: quiet.until, reason: quietReason('held', quiet) };
  }
  if (quiet?.action === 'drop') return suppressed(quietReason('dropped', quiet));
  const limit = adapter.rateLimit?.(channel.config);
  if (limit) {
    let wait: number;
    try {
      wait = await deps.pacer.reserve(limit, startedAt);
    } catch {
      // The shared window could not be taken (the database is away): nothing was sent, so
      // the delivery waits a moment without spending an attempt, and the limit holds.
      wait = PACING_UNAVAILABLE_WAIT_MS;
    }
    if (wait > 0) return { deferUntil: startedAt + wait };
  }
  let attachments: MessageAttachment[] | undefined;
  if (delivery.attachmentIds?.length && deps.loadAttachments) {
    try {
      attachments = await deps.loadAttachments(delivery.attachmentIds);
    } catch (err) {
      return failure(
        DeliveryError.transient(`loading the send's files failed: ${errorMessage(err)}`),
      );
    }
  }
  try {
    const receipt = await withTimeout(
      adapter.send(
        channel.config,
        {
          deliveryId: delivery.id,
          channelId: delivery.channelId,
          title: delivery.title,
          content: delivery.content,
          contentType: delivery.contentType,
          url: delivery.url,
          recipient: delivery.recipient,
          // Softened: nobody is @mentioned (DingTalk, WeCom and every robot that pings).
          mentions: quiet?.action === 'soften' ? noMentions() : delivery.mentions,
          priority: parsePriority(delivery.priority) ?? null,
          repeats: delivery.repeats,
          templateCode: delivery.templateCode,
          ...(attachments && { attachments }),
          ...(quiet?.action === 'soften' && { silent: true }),
        },
        deps.runtime,
      ),
      ATTEMPT_TIMEOUT_MS,
    );
    return finished('sent', null, receipt.reply, null);
  } catch (err) {
    return failure(err instanceof DeliveryError ? err : DeliveryError.transient(errorMessage(err)));
  }

  function suppressed(reason: string): AttemptRun {
    return {
      outcome: {
        id: delivery.id,
        lease: delivery.lease,
        status: 'suppressed',
        outcome: 'suppressed',
        error: reason,
        reply: null,
        startedAt,
        durationMs: deps.clock.now() - startedAt,
        retryAt: null,
      },
      channelType: channel?.type ?? null,
    };
  }

  function failure(de: DeliveryError): AttemptRun {
    // Not a failure: the adapter says when it may go. No attempt is spent.
    if (de.deferUntil !== undefined) return { deferUntil: de.deferUntil, reason: de.message };
    if (de.suppressed) return suppressed(de.message);
    const attemptNo = delivery.attempts + 1;
    const retryAt = de.retryable
      ? nextAttemptAt(attemptNo, deps.retryPolicy(), deps.clock.now(), de.retryAfterMs, deps.random)
      : null;
    const error =
      de.retryable && retryAt === null
        ? `gave up after ${attemptNo} attempts: ${de.message}`
        : de.message;
    return finished(de.retryable ? 'transient' : 'permanent', error, de.reply ?? null, retryAt);
  }
}

/** What the send log shows of a hold or a drop: which rule, and until when. */
function quietReason(what: 'held' | 'dropped', quiet: QuietDecision): string {
  const until = new Date(quiet.until).toISOString();
  return what === 'held'
    ? `held by quiet-hours rule ${quiet.ruleId} until ${until}`
    : `dropped by quiet-hours rule ${quiet.ruleId} (quiet until ${until})`;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_r, reject) => {
      timer = setTimeout(
        () => reject(DeliveryError.transient(`no answer within ${ms / 1000} s`)),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}
