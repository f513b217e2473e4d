import type { z } from 'zod';

import type {
  createPushSubscriptionBody,
  PushSubscriptionInfo,
} from '../../../contract/console/push';
import { createECDH } from 'node:crypto';

import { PushSubscription } from '../../db/models/push-subscription';
import type { AuditState } from '../audit/audit-diff';
import type { WriteLock } from '../../db/writer';
import { AppError, notFound } from '../../lib/errors';
import { checkEndpoint } from './push-endpoints';

export type NewPushSubscription = z.output<typeof createPushSubscriptionBody>;

export interface PushSubscriptionServiceDeps {
  writeLock: WriteLock;
  /** HERALD_WEB_PUSH_ENDPOINTS, parsed. */
  extraEndpoints: readonly string[];
}

/** Each person's own push subscriptions: only ever their own, listed, added or removed. */
export class PushSubscriptionService {
  constructor(private readonly deps: PushSubscriptionServiceDeps) {}

  toDto(s: PushSubscription): PushSubscriptionInfo {
    return {
      id: s.id,
      deviceName: s.deviceName,
      endpoint: s.endpoint,
      filter: s.filter,
      createdAt: s.createdAt.toISOString(),
      lastPushAt: s.lastPushAt ? new Date(s.lastPushAt).toISOString() : null,
    };
  }

  async list(userId: number): Promise<PushSubscriptionInfo[]> {
    const rows = await PushSubscription.findAll({ where: { userId }, order: [['id', 'ASC']] });
    return rows.map((r) => this.toDto(r));
  }

  /**
   * Subscribes a browser. Its endpoint is unique to the browser, so the same endpoint again (the
   * reader subscribing anew, or another account signed in on that browser) takes the row over:
   * one browser never gets a message twice.
   */
  async subscribe(userId: number, input: NewPushSubscription): Promise<PushSubscriptionInfo> {
    checkEndpoint(input.endpoint, this.deps.extraEndpoints);
    checkKeys(input.keys);
    const values = {
      userId,
      endpoint: input.endpoint,
      p256dh: input.keys.p256dh,
      auth: input.keys.auth,
      deviceName: input.deviceName,
      filter: input.filter,
    };
    const row = await this.deps.writeLock.run(async ({ transaction }) => {
      const existing = await PushSubscription.findOne({
        where: { endpoint: input.endpoint },
        transaction,
      });
      if (!existing) return PushSubscription.create(values, { transaction });
      existing.set(values);
      // A browser that subscribes anew has its own keys: a push sent since is for the old ones.
      existing.lastPushAt = null;
      return existing.save({ transaction });
    });
    return this.toDto(row);
  }

  /** Removes one of `userId`'s subscriptions; another person's is answered as not found. */
  async remove(userId: number, id: number): Promise<void> {
    const removed = await this.deps.writeLock.run(() =>
      PushSubscription.destroy({ where: { id, userId } }),
    );
    if (removed === 0) throw notFound(`push subscription ${id} does not exist, or is not yours`);
  }
}

/**
 * A subscription as the audit log records it: its device name, filter and push service (the
 * endpoint's host: the whole endpoint is the capability to push to that browser).
 */
export async function pushAuditState(id: number): Promise<AuditState | null> {
  const s = await PushSubscription.findByPk(id);
  if (!s) return null;
  return {
    name: s.deviceName,
    fields: { deviceName: s.deviceName, pushService: new URL(s.endpoint).host, filter: s.filter },
    secrets: {},
  };
}

/**
 * The browser's keys as a payload can be encrypted to: a point on P-256 (uncompressed, 65 bytes)
 * and a 16-byte secret. Refused here, a bad key would fail every push instead.
 */
function checkKeys(keys: { p256dh: string; auth: string }): void {
  const point = Buffer.from(keys.p256dh, 'base64url');
  try {
    if (point.length !== 65 || point[0] !== 4) throw new Error('not uncompressed');
    // Computing a shared secret checks that the point is on the curve.
    const probe = createECDH('prime256v1');
    probe.generateKeys();
    probe.computeSecret(point);
  } catch {
    throw new AppError(400, 'keys.p256dh: is not a P-256 public key');
  }
  if (Buffer.from(keys.auth, 'base64url').length !== 16) {
    throw new AppError(400, 'keys.auth: must be 16 bytes');
  }
}
