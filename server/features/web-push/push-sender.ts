import { QueryTypes, type Sequelize } from 'sequelize';
import webpush from 'web-push';

import { DEFAULT_PRIORITY, parsePriority, type Priority } from '../../../contract/priority';
import { DeliveryError } from '../../channels/delivery-error';
import { assertHttpOk, httpRequest, replyOf } from '../../channels/http-client';
import { PushSubscription } from '../../db/models/push-subscription';
import type { WriteLock } from '../../db/writer';
import { errorMessage } from '../../lib/errors';
import type { QuietHoursLookup } from '../quiet-hours/quiet-hours-lookup';
import { createLogger } from '../../lib/logger';
import type { DeliveryKind } from '../../queue/attempt';
import type { ClaimedDelivery } from '../../queue/store/hot-path-rows';
import { endpointRefusal } from './push-endpoints';
import { pushPayloadOf, ttlOf, urgencyOf, type PushPayload } from './push-payload';
import { mayReadMessage } from './push-rights';
import type { VapidKeyPair, VapidKeys } from './vapid-keys';

const log = createLogger('web-push');

/** A push service that does not answer in this long is retried like any platform. */
const PUSH_TIMEOUT_MS = 15_000;

/** A push delivery with its subscription, its owner and its message, as they are now. */
interface PushTarget {
  message_id: number;
  topic: string;
  subscription_id: number | null;
  endpoint: string | null;
  p256dh: string | null;
  auth: string | null;
  user_id: number | null;
  username: string | null;
  role: string | null;
  disabled: boolean | number | null;
  task_id: number | null;
  template_id: number | null;
  title: string | null;
  content: string | null;
  format: string | null;
  url: string | null;
}

export interface PushSenderDeps {
  sequelize: Sequelize;
  writeLock: WriteLock;
  keys: VapidKeys;
  /** HERALD_WEB_PUSH_ENDPOINTS, parsed. */
  extraEndpoints: readonly string[];
  /** VAPID's `sub`: whom a push service contacts about Herald's pushes. */
  subject(): string;
  /**
   * The subscription owner's own quiet hours (issue 46 §1), asked before each push: a hold
   * waits, a drop suppresses, a soften pushes silently. Unset: none.
   */
  quietHours?: Pick<QuietHoursLookup, 'forPerson'>;
  /** The delivery clock, for the quiet hours; default the system's. */
  now?: () => number;
}

/**
 * Sends one push delivery (docs/reader.md "Web Push"): the message read as it is now, the
 * owner's rights checked again, the payload encrypted (aes128gcm) and signed (VAPID) by the
 * web-push package and carried by Herald's own HTTP client, which classifies the answer like
 * every platform's. A subscription the push service calls gone (404, 410) is removed.
 */
export class PushSender implements DeliveryKind {
  constructor(private readonly deps: PushSenderDeps) {}

  async send(delivery: ClaimedDelivery): Promise<{ reply: string }> {
    const target = await this.target(delivery.id);
    if (!target) throw DeliveryError.permanent('this push has no subscription recorded');
    if (target.subscription_id === null || target.endpoint === null) {
      throw DeliveryError.permanent('the push subscription was removed before it was pushed');
    }
    const source = { taskId: target.task_id, templateId: target.template_id };
    if (
      target.role === null ||
      !mayReadMessage({ role: target.role, disabled: Boolean(target.disabled) }, source)
    ) {
      throw DeliveryError.permanent(`${target.username ?? 'its owner'} may not read this message`);
    }
    if (target.title === null) {
      throw DeliveryError.permanent(`hosted message ${target.message_id} was deleted`);
    }
    const refusal = endpointRefusal(target.endpoint, this.deps.extraEndpoints);
    if (refusal) throw DeliveryError.permanent(`the subscription's endpoint ${refusal}`);

    const priority = parsePriority(delivery.priority) ?? DEFAULT_PRIORITY;
    const quiet =
      target.user_id === null
        ? null
        : await this.deps.quietHours?.forPerson(
            Number(target.user_id),
            priority,
            this.deps.now?.() ?? Date.now(),
          );
    if (quiet?.action === 'hold') {
      const until = new Date(quiet.until).toISOString();
      throw DeliveryError.deferred(
        `held by quiet-hours rule ${quiet.ruleId} until ${until}`,
        quiet.until,
      );
    }
    if (quiet?.action === 'drop') {
      const until = new Date(quiet.until).toISOString();
      throw DeliveryError.suppressed(
        `dropped by quiet-hours rule ${quiet.ruleId} (quiet until ${until})`,
      );
    }
    const silent = quiet?.action === 'soften';
    const payload = pushPayloadOf({
      id: target.message_id,
      title: target.title,
      content: target.content ?? '',
      format: target.format ?? 'text',
      url: target.url,
      priority,
      silent,
    });
    const vapid = await this.deps.keys.load();
    const request = this.encrypted(target, payload, priority, vapid, silent);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name] = String(value);
    const res = await httpRequest({
      method: 'POST',
      url: request.endpoint,
      headers,
      body: request.body ?? Buffer.alloc(0),
      options: { timeoutMs: PUSH_TIMEOUT_MS },
    });
    if (res.status === 404 || res.status === 410) {
      await this.forget(target.subscription_id);
      throw DeliveryError.permanent(
        `the push service says this subscription is gone (HTTP ${res.status}); it was removed`,
        { reply: replyOf(res) },
      );
    }
    assertHttpOk(res, 'the push service');
    await this.pushed(target.subscription_id);
    return { reply: replyOf(res) };
  }

  /** The request web-push builds: the payload encrypted (aes128gcm) and the VAPID JWT signed. */
  private encrypted(
    target: PushTarget,
    payload: PushPayload,
    priority: Priority,
    vapid: VapidKeyPair,
    silent: boolean,
  ): webpush.RequestDetails {
    try {
      return webpush.generateRequestDetails(
        { endpoint: target.endpoint!, keys: { p256dh: target.p256dh!, auth: target.auth! } },
        JSON.stringify(payload),
        {
          vapidDetails: {
            subject: this.deps.subject(),
            publicKey: vapid.publicKey,
            privateKey: vapid.privateKey,
          },
          TTL: ttlOf(priority),
          // Softened: RFC 8030's `low`, so a phone on battery is not woken for it.
          urgency: silent ? 'low' : urgencyOf(priority),
          topic: target.topic,
          contentEncoding: 'aes128gcm',
        },
      );
    } catch (err) {
      // The same keys would fail the same way at every retry.
      throw DeliveryError.permanent(`the push could not be encrypted: ${errorMessage(err)}`);
    }
  }

  private async target(deliveryId: number): Promise<PushTarget | null> {
    const [row] = await this.deps.sequelize.query<PushTarget>(
      `SELECT pd.message_id, pd.topic, pd.subscription_id, p.endpoint, p.p256dh, p.auth,
              p.user_id, u.username, u.role, u.disabled, s.task_id, s.template_id,
              m.title, m.content, m.format, m.url
         FROM push_deliveries pd
         JOIN deliveries d ON d.id = pd.delivery_id
         JOIN sends s ON s.id = d.send_id
         LEFT JOIN push_subscriptions p ON p.id = pd.subscription_id
         LEFT JOIN users u ON u.id = p.user_id
         LEFT JOIN hosted_messages m ON m.id = pd.message_id
        WHERE pd.delivery_id = :deliveryId`,
      { type: QueryTypes.SELECT, replacements: { deliveryId } },
    );
    return row ?? null;
  }

  private async forget(subscriptionId: number): Promise<void> {
    await this.deps.writeLock.run(() =>
      PushSubscription.destroy({ where: { id: subscriptionId } }),
    );
    log.info(`push subscription ${subscriptionId} removed: its push service no longer knows it`);
  }

  /** When it last took a push (the console shows it); a failure here is not the push's. */
  private async pushed(subscriptionId: number): Promise<void> {
    try {
      await this.deps.writeLock.run(() =>
        PushSubscription.update({ lastPushAt: new Date() }, { where: { id: subscriptionId } }),
      );
    } catch (err) {
      log.warn(`push subscription ${subscriptionId}: lastPushAt not saved: ${errorMessage(err)}`);
    }
  }
}
