import type { AttemptResult } from '../../queue/dispatcher';
import type { SendResponse } from './send-service';

/** A delivery as the V1 answer names it. */
export interface AcceptedDelivery {
  id: number;
  instanceId: number | null;
  channelId: number;
  channelType: string;
  recipient: string | null;
  /** A hosted delivery stored with the accept: its attempt, already recorded. */
  stored?: AttemptResult;
}

/**
 * design.md's V1 answer: sent; partial or retrying (with per-instance results) while something
 * was delivered or will still be tried; 500 only when every delivery failed for good. A caller
 * that resent on a retrying answer would get the message twice once the platform recovers.
 */
export function summariseV1(
  sendId: number,
  deliveries: AcceptedDelivery[],
  results: Map<number, AttemptResult>,
): SendResponse {
  const rows = deliveries.map((d) => {
    const r = results.get(d.id);
    return {
      instanceId: d.instanceId,
      channelId: d.channelId,
      channelType: d.channelType,
      recipient: d.recipient,
      status: r?.status ?? 'queued',
      error: r?.error ?? null,
    };
  });
  const count = (status: string) => rows.filter((r) => r.status === status).length;
  const sent = count('sent');
  const failed = count('failed');
  const retrying = count('retrying');
  // Dropped by quiet hours on purpose: finished, and nothing to send again.
  const suppressed = count('suppressed');
  if (sent === rows.length) return { code: 200, msg: 'success', data: { status: 'sent', sendId } };
  if (suppressed === rows.length) {
    return { code: 200, msg: 'success', data: { status: 'suppressed', sendId, results: rows } };
  }
  if (sent > 0 && sent + suppressed === rows.length) {
    return { code: 200, msg: 'success', data: { status: 'sent', sendId, results: rows } };
  }
  if (failed === rows.length) {
    const reasons = rows
      .map(
        (r) =>
          `instance ${r.instanceId} (${r.channelType}${r.recipient ? ` to ${r.recipient}` : ''}): ${r.error ?? r.status}`,
      )
      .join('; ');
    return { code: 500, msg: `all deliveries failed: ${reasons}`, data: null };
  }
  // Something was delivered, or something will still be tried (queued, sending, retrying).
  let status: 'partial' | 'retrying' | 'queued';
  if (sent > 0) status = failed + retrying > 0 ? 'partial' : 'queued';
  else status = retrying > 0 ? 'retrying' : 'queued';
  return { code: 200, msg: 'success', data: { status, sendId, results: rows } };
}
