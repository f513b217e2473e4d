import { AppError } from '../../lib/errors';
import type { SendCredential } from '../../db/models/send';
import type { Bodies } from '../../domain/content-format';
import type { AcceptInput, Accepted } from '../../queue/delivery-state';
import type { PlannedDelivery } from './delivery-plan';
import type { PlaceholderWarning, Priority, V1Request, V2Request } from '../../../contract';
import type { AcceptedDelivery } from './v1-answer';
import type { DigestPlan } from '../digests/digest-service';

/**
 * A send Herald makes itself rather than an API caller: a schedule's run. The send row is
 * linked to the schedule, and `stored` learns its id (V2's answer does not carry it).
 */
export interface SendOrigin {
  scheduleId: number;
  stored?(sendId: number): void;
}

/** One send as V1 or V2 planned it, before it becomes rows. */
export interface SendToStore {
  api: 'v1' | 'v2';
  taskId: number | null;
  templateId: number | null;
  sourceName: string;
  title: string;
  bodies: Bodies;
  url: string | null;
  request: Record<string, unknown>;
  planned: PlannedDelivery[];
  origin?: SendOrigin;
  credential: SendCredential;
  /** 1 … 5 as the sender gave it; null: each channel's own default. */
  priority: Priority | null;
  /** The sender's dedup key and window; the window itself is kept by DeliveryState.acceptOnce. */
  dedup: { key: string; windowSeconds: number | null } | null;
  /** V2: what the placeholders left unfilled or dropped (kept with the send for its log). */
  warnings?: readonly PlaceholderWarning[];
  /** The send's files, already stored (issue 43 §2); absent when it has none. */
  files?: SendFiles;
  /** The digests that collect it, or some of its instances' deliveries (issue 46 §2). */
  digest?: DigestPlan;
}

/**
 * A send's stored files: their ids go on every delivery (the claim hands them to the attempt),
 * and `stored` ties them to the send once it is accepted.
 */
export interface SendFiles {
  ids: readonly string[];
  stored(sendId: number): Promise<void>;
}

/**
 * The send row and its delivery rows. Hosted deliveries are stored with the accept unless
 * the dispatcher is paused: then they wait in the queue like every other.
 */
export function acceptInputOf(input: SendToStore, paused: boolean, repeats = 0): AcceptInput {
  const attachments = input.files?.ids.length ? JSON.stringify(input.files.ids) : null;
  return {
    send: {
      api: input.api,
      taskId: input.taskId,
      templateId: input.templateId,
      sourceName: input.sourceName,
      title: input.title,
      text: input.bodies.text ?? null,
      html: input.bodies.html ?? null,
      markdown: input.bodies.markdown ?? null,
      url: input.url,
      request: input.request,
      deliveryCount: input.planned.length,
      scheduleId: input.origin?.scheduleId ?? null,
      credential: input.credential,
      priority: input.priority,
      dedupKey: input.dedup?.key ?? null,
      // Left out when there are none: the column stays NULL (a JSON null would not).
      ...(input.warnings?.length && { warnings: [...input.warnings] }),
    },
    deliveries: input.planned.map((p) => ({
      instanceId: p.target.instance.id,
      channelId: p.target.channel.id,
      channelType: p.target.channel.type,
      contentType: p.contentType,
      recipient: p.recipient,
      title: input.title,
      content: p.content,
      url: input.url,
      mentions: p.mentions,
      templateCode: p.templateCode,
      previewKey: p.previewKey,
      priority: input.priority,
      repeats,
      ...(attachments && { attachments }),
      storeOnAccept: p.target.channel.type === 'hosted' && !paused,
    })),
  };
}

/** The stored deliveries as the V1 answer names them, in the order they were planned. */
export function acceptedDeliveries(
  planned: PlannedDelivery[],
  { deliveryIds, stored }: Accepted,
): AcceptedDelivery[] {
  const storedById = new Map(stored.map((s) => [s.deliveryId, s]));
  return planned.map((p, i) => {
    const s = storedById.get(deliveryIds[i]);
    return {
      id: deliveryIds[i],
      instanceId: p.target.instance.id,
      channelId: p.target.channel.id,
      channelType: p.target.channel.type,
      recipient: p.recipient,
      ...(s && {
        stored: { deliveryId: s.deliveryId, status: 'sent', error: null, reply: s.reply },
      }),
    };
  });
}

/** The dedup key and window a request gives; a window without a key is refused. */
export function dedupOf(req: V1Request | V2Request): SendToStore['dedup'] {
  if (req.dedupKey) return { key: req.dedupKey, windowSeconds: req.dedupWindow ?? null };
  if (req.dedupWindow !== undefined && req.dedupWindow !== null) {
    throw new AppError(400, "dedupWindow: give a dedupKey with it; the window is that key's");
  }
  return null;
}

/** The request as logged: the token is the credential, so only its start is kept. */
export function redact(req: V1Request | V2Request): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...req };
  if (typeof copy.token === 'string') copy.token = `${copy.token.slice(0, 6)}…`;
  return copy;
}
