import type { ContentType, Mentions } from '../../channels/channel-adapter';
import { noMentions } from '../../channels/channel-adapter';
import { LIMITS } from '../../../contract';
import type { Template } from '../../db/models';
import type { PlaceholderDefinition } from '../../db/models/template';
import { chooseContent, type Bodies } from '../../domain/content-format';
import { splitList } from '../../domain/lists';
import { filledLength } from '../../domain/placeholders';
import { newPreviewKey } from '../../domain/preview-keys';
import { AppError } from '../../lib/errors';
import { shareLinkOf, type ShareLinkDeps } from '../hosted/share-links';
import type { DeliveryTarget } from './source-lookup';

/** One delivery a send will store: where it goes, in which format, with what. */
export interface PlannedDelivery {
  target: DeliveryTarget;
  contentType: ContentType;
  content: string;
  recipient: string | null;
  mentions: Mentions;
  /** The instance's own template code (Aliyun SMS), or null: the channel's. */
  templateCode: string | null;
  /**
   * Hosted deliveries of an instance with a public link: the share-link key, chosen now so the
   * answer can carry the link. Null otherwise: the message is shared later, in the reader.
   */
  previewKey: string | null;
}

const uniq = (list: string[]) => [...new Set(list.filter((s) => s.length > 0))];

/** Rule 3 of dynamic recipients, and each address checked before anything is queued. */
export function checkRecipients(
  targets: DeliveryTarget[],
  recipients: string[] | undefined,
): string[] {
  const dynamic = targets.filter((t) => t.instance.dynamicRecipients);
  if (dynamic.length === 0) return [];
  const list = uniq(recipients ?? []);
  if (list.length === 0) {
    throw new AppError(
      400,
      `recipients: is required because instance ${dynamic[0].instance.id} (${dynamic[0].channel.name}) sends to dynamic recipients`,
    );
  }
  for (const t of dynamic) {
    for (const r of list) {
      const problem = t.adapter.validateRecipient?.(r);
      if (problem) throw new AppError(400, `recipients: ${problem}`);
    }
  }
  return list;
}

/** One delivery per enabled instance (per recipient for dynamic ones), content chosen per instance. */
export function planDeliveries(
  targets: DeliveryTarget[],
  bodies: Bodies,
  recipients: string[],
  mentions: Mentions,
): PlannedDelivery[] {
  const planned: PlannedDelivery[] = [];
  for (const target of targets) {
    const chosen = chooseContent(bodies, target.instance.contentType);
    if (!chosen) continue;
    const targetMentions = mentionsFor(target, mentions);
    for (const recipient of recipientsFor(target, recipients)) {
      planned.push({
        target,
        contentType: target.instance.contentType,
        content: chosen.content,
        recipient,
        mentions: targetMentions,
        templateCode: target.instance.templateCode ?? null,
        previewKey: hasPublicLink(target) ? newPreviewKey() : null,
      });
    }
  }
  return planned;
}

/** A hosted instance whose messages are shared at accept; others are shared in the reader. */
function hasPublicLink(target: DeliveryTarget): boolean {
  return target.channel.type === 'hosted' && target.instance.publicLink;
}

function recipientsFor(target: DeliveryTarget, dynamic: string[]): Array<string | null> {
  if (target.instance.dynamicRecipients) return dynamic;
  if (target.adapter.fixedRecipient === 'required') return [target.instance.recipient];
  return [null];
}

function mentionsFor(target: DeliveryTarget, base: Mentions): Mentions {
  if (!target.adapter.supportsMentions) return noMentions();
  return {
    mobiles: uniq([...base.mobiles, ...splitList(target.instance.atMobiles)]),
    userIds: uniq(base.userIds),
    all: base.all || target.instance.atAll,
  };
}

/**
 * Message Nest's `hostMessageUrl`: the share link of the message the first hosted instance with
 * a public link will store. Valid once that delivery has run; a send with no such instance
 * answers none.
 */
export function hostMessageUrl(
  deps: ShareLinkDeps,
  planned: PlannedDelivery[],
): { hostMessageUrl?: string } {
  const key = planned.find((p) => p.previewKey !== null)?.previewKey;
  return key ? { hostMessageUrl: shareLinkOf(deps, key) } : {};
}

/**
 * Refuses a V2 send whose filled bodies would pass the limits, before any of them is built: a
 * marker repeated many times and filled with a long value multiplies the request's size.
 */
export function checkFilledSize(
  template: Pick<Template, 'text' | 'html' | 'markdown'> & {
    placeholders: readonly PlaceholderDefinition[];
  },
  values: Record<string, string>,
): void {
  const formats: Array<[ContentType, string | null]> = [
    ['text', template.text],
    ['html', template.html],
    ['markdown', template.markdown],
  ];
  let total = 0;
  for (const [format, body] of formats) {
    if (!body) continue;
    const length = filledLength(body, template.placeholders, values, format);
    if (length > LIMITS.contentChars) {
      throw new AppError(
        400,
        `placeholders: the filled ${format} body would be ${length.toLocaleString('en-US')} characters; the limit is ${LIMITS.contentChars.toLocaleString('en-US')} per body: send shorter placeholder values or shorten the template`,
      );
    }
    total += length;
  }
  if (total > LIMITS.sendContentChars) {
    throw new AppError(
      400,
      `placeholders: the filled bodies would be ${total.toLocaleString('en-US')} characters together; the limit is ${LIMITS.sendContentChars.toLocaleString('en-US')} per send: send shorter placeholder values or shorten the template`,
    );
  }
}
