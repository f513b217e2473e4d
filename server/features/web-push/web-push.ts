import type { Sequelize } from 'sequelize';

import type { SecretBox } from '../../crypto/secret-box';
import type { WriteLock } from '../../db/writer';
import type { HeraldEvents } from '../../events';
import type { Clock } from '../../lib/clock';
import { PushFanout, WEB_PUSH_KIND } from './push-fanout';
import { PushSender } from './push-sender';
import { PushSubscriptionService } from './subscription-service';
import { VapidKeys } from './vapid-keys';

export { WEB_PUSH_KIND };

export interface WebPushDeps {
  sequelize: Sequelize;
  writeLock: WriteLock;
  secrets: SecretBox;
  events: HeraldEvents;
  clock: Clock;
  /** HERALD_WEB_PUSH_ENDPOINTS, parsed. */
  extraEndpoints: readonly string[];
  /** The settings' public address ('' when unset), for VAPID's `sub`. */
  publicBaseUrl(): string;
  /** Wakes the dispatcher once pushes are queued. */
  wake(): void;
}

/** Web Push's parts, built once by the composition root. */
export interface WebPush {
  keys: VapidKeys;
  subscriptions: PushSubscriptionService;
  /** The `web-push` delivery kind the dispatcher runs. */
  sender: PushSender;
  /** Plans each new hosted message's pushes; started and stopped with the dispatcher. */
  fanout: PushFanout;
}

/**
 * VAPID's `sub`, whom a push service may contact about Herald's pushes: Herald's public https
 * address when it has one; otherwise an address that names Herald and reaches nobody (push
 * services require the field, not that it answers).
 */
export function vapidSubject(publicBaseUrl: string): string {
  try {
    const url = new URL(publicBaseUrl);
    if (url.protocol === 'https:') return url.origin;
  } catch {
    // Unset or not a URL: the fallback.
  }
  return 'mailto:web-push@herald.invalid';
}

export function composeWebPush(deps: WebPushDeps): WebPush {
  const { sequelize, writeLock, extraEndpoints } = deps;
  const keys = new VapidKeys({ writeLock, secrets: deps.secrets });
  return {
    keys,
    subscriptions: new PushSubscriptionService({ writeLock, extraEndpoints }),
    sender: new PushSender({
      sequelize,
      writeLock,
      keys,
      extraEndpoints,
      subject: () => vapidSubject(deps.publicBaseUrl()),
    }),
    fanout: new PushFanout({
      sequelize,
      writeLock,
      events: deps.events,
      clock: deps.clock,
      wake: deps.wake,
    }),
  };
}
