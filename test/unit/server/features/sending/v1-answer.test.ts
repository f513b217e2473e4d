import { describe, expect, it } from 'vitest';

import { summariseV1 } from '../../../../../server/features/sending/v1-answer';
import type { Delivery, DeliveryStatus } from '../../../../../server/db/models/delivery';
import type { AttemptResult } from '../../../../../server/queue/dispatcher';

/** Deliveries 1..n whose first attempts came to these statuses (undefined: not tried in the wait). */
function answer(...statuses: Array<DeliveryStatus | undefined>) {
  const deliveries = statuses.map(
    (_, i) =>
      ({
        id: i + 1,
        instanceId: 10 + i,
        channelId: 20 + i,
        channelType: 'webhook',
        recipient: null,
      }) as Delivery,
  );
  const results = new Map<number, AttemptResult>();
  statuses.forEach((status, i) => {
    if (status)
      results.set(i + 1, {
        deliveryId: i + 1,
        status,
        error: status === 'sent' ? null : 'HTTP 503',
        reply: null,
      });
  });
  return summariseV1(99, deliveries, results);
}

const status = (a: ReturnType<typeof answer>) =>
  a.code === 200 ? (a.data as { status: string }).status : a.code;

describe('summariseV1()', () => {
  it('answers a send quiet hours dropped everywhere as suppressed, and sent where the rest went', () => {
    expect(status(answer('suppressed'))).toBe('suppressed');
    expect(status(answer('suppressed', 'suppressed'))).toBe('suppressed');
    const mixed = answer('sent', 'suppressed');
    expect(status(mixed)).toBe('sent');
    expect((mixed.data as { results: Array<{ status: string }> }).results[1]!.status).toBe(
      'suppressed',
    );
  });

  it('summariseV1() answers 500 only when every delivery failed for good', () => {
    expect(status(answer('failed'))).toBe(500);
    expect(status(answer('failed', 'failed'))).toBe(500);
    expect(answer('failed').msg).toBe('all deliveries failed: instance 10 (webhook): HTTP 503');
  });

  it('summariseV1() answers "retrying" while nothing is delivered but something will be retried', () => {
    expect(status(answer('retrying'))).toBe('retrying');
    expect(status(answer('retrying', 'failed'))).toBe('retrying');
    expect(status(answer('retrying', undefined))).toBe('retrying');
    const a = answer('retrying', 'failed');
    expect(a.msg).toBe('success');
    expect((a.data as { results: Array<{ status: string }> }).results.map((r) => r.status)).toEqual(
      ['retrying', 'failed'],
    );
  });

  it('summariseV1() answers "partial" when some are delivered and others failed', () => {
    expect(status(answer('sent', 'retrying'))).toBe('partial');
    expect(status(answer('sent', 'failed'))).toBe('partial');
    expect(status(answer('sent', 'failed', undefined))).toBe('partial');
  });

  it('summariseV1() answers "queued" when the rest was not tried yet, and "sent" when all were', () => {
    expect(status(answer('sent', undefined))).toBe('queued');
    expect(status(answer(undefined))).toBe('queued');
    expect(status(answer('failed', undefined))).toBe('queued');
    expect(answer('sent', 'sent')).toEqual({
      code: 200,
      msg: 'success',
      data: { status: 'sent', sendId: 99 },
    });
  });
});
