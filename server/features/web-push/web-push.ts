import type { HeraldConfig } from '../../config/herald-config';
import type { SecretBox } from '../../crypto/secret-box';
import type { Database } from '../../db/database';
import type { HeraldEvents } from '../../events';
import type { DeliveryKind } from '../../queue/attempt';
import { QuietHoursLookup } from '../quiet-hours/quiet-hours-lookup';
import type { SettingsStore } from '../settings/settings-store';
import { PushFanout, WEB_PUSH_KIND } from './push-fanout';
import { PushSender } from './push-sender';
import { PushSubscriptionService } from './subscription-service';
import { VapidKeys } from './vapid-keys';

export { WEB_PUSH_KIND };

/** Web Push's parts, built once by the composition root. */
export interface WebPush {
  keys: VapidKeys;
  subscriptions: PushSubscriptionService;
  /** The `web-push` delivery kind the dispatcher runs. */
  sender: PushSender;
  /** Plans each new hosted message's pushes; started and stopped with the dispatcher. */
  fanout: PushFanout;
  /** The dispatcher's delivery kinds: `web-push` → the sender. */
  kinds: ReadonlyMap<string, DeliveryKind>;
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

/**
 * Builds Web Push's parts and makes the VAPID key pair if this is the first start, so the key the
 * console hands browsers never changes under them. `wake` tells the dispatcher pushes are queued.
 */
export async function composeWebPush(
  db: Pick<Database, 'sequelize' | 'writer'>,
  secrets: SecretBox,
  events: HeraldEvents,
  config: Pick<HeraldConfig, 'clock' | 'webPushEndpoints'>,
  settings: Pick<SettingsStore, 'get'>,
  wake: () => void,
): Promise<WebPush> {
  const { sequelize, writer: writeLock } = db;
  const extraEndpoints = config.webPushEndpoints;
  const keys = new VapidKeys({ writeLock, secrets });
  await keys.load();
  const sender = new PushSender({
    sequelize,
    writeLock,
    keys,
    extraEndpoints,
    subject: () => vapidSubject(settings.get().publicBaseUrl),
    quietHours: new QuietHoursLookup(sequelize),
    now: () => config.clock.now(),
  });
  return {
    keys,
    subscriptions: new PushSubscriptionService({ writeLock, extraEndpoints }),
    sender,
    fanout: new PushFanout({ sequelize, writeLock, events, clock: config.clock, wake }),
    kinds: new Map([[WEB_PUSH_KIND, sender]]),
  };
}
