import { createHash } from 'node:crypto';

import { DEFAULT_PRIORITY, parsePriority, type Priority } from '../../../contract/priority';
import { plainTextOf } from '../../domain/plain-text';

/**
 * What a push carries and how the push service is asked to treat it (docs/reader.md "Web
 * Push"). The service worker shows `title` and `body`; `messageId` opens the message.
 */
export interface PushPayload {
  title: string;
  /** The message as plain text, cut so the whole payload fits the push limit. */
  body: string;
  messageId: number;
  priority: Priority;
  url: string | null;
  /** Softened by the person's quiet hours: the notification is shown without sound or vibration. */
  silent?: boolean;
}

/**
 * Push services take 4096 bytes of encrypted payload; aes128gcm's header (86 bytes with a
 * 65-byte key), its tag (16) and the padding delimiter (1) leave 3993 for the JSON. A margin
 * under that keeps it clear of services that count differently.
 */
export const MAX_PAYLOAD_BYTES = 3800;

/** A push's title is kept short: notification banners show one line. */
const MAX_TITLE_CHARS = 200;

/** The payload of a message, its body cut (on a character) until the JSON fits. */
export function pushPayloadOf(message: {
  id: number;
  title: string;
  content: string;
  format: string;
  url: string | null;
  priority: number | null;
  silent?: boolean;
}): PushPayload {
  const titleChars = Array.from(message.title);
  const title =
    titleChars.length > MAX_TITLE_CHARS
      ? `${titleChars.slice(0, MAX_TITLE_CHARS - 1).join('')}…`
      : message.title;
  const base: PushPayload = {
    title,
    body: '',
    messageId: message.id,
    priority: parsePriority(message.priority) ?? DEFAULT_PRIORITY,
    url: message.url && message.url.length <= 1000 ? message.url : null,
    ...(message.silent && { silent: true }),
  };
  const room = MAX_PAYLOAD_BYTES - Buffer.byteLength(JSON.stringify(base), 'utf8');
  return { ...base, body: cutToBytes(plainTextOf(message.content, message.format).trim(), room) };
}

/** `text` cut on a character boundary so its JSON string form fits in `bytes`. */
function cutToBytes(text: string, bytes: number): string {
  if (Buffer.byteLength(JSON.stringify(text), 'utf8') - 2 <= bytes) return text;
  const chars = Array.from(text);
  // Halving finds the longest prefix that fits without measuring every length.
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const candidate = `${chars.slice(0, mid).join('')}…`;
    if (Buffer.byteLength(JSON.stringify(candidate), 'utf8') - 2 <= bytes) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? '' : `${chars.slice(0, lo).join('')}…`;
}

export type Urgency = 'very-low' | 'low' | 'normal' | 'high';

/** RFC 8030 Urgency: 5 is `high`, 1–2 `low`, 3–4 (and none) `normal`. */
export function urgencyOf(priority: Priority): Urgency {
  if (priority === 5) return 'high';
  if (priority <= 2) return 'low';
  return 'normal';
}

/**
 * How long the push service keeps a push for a device that is offline, in seconds: a day for
 * 3 and above (an alert read the next morning still matters), an hour below (a low-priority
 * note that arrives hours late is noise).
 */
export function ttlOf(priority: Priority): number {
  return priority >= 3 ? 86_400 : 3_600;
}

/**
 * RFC 8030 Topic: a newer push with the same topic replaces one the push service still holds.
 * One thread is a source (task or template) and its dedup key, so a repeat of one alert
 * replaces the unread one. At most 32 characters of the URL-safe base64 alphabet: a hash.
 */
export function topicOf(source: string, dedupKey: string | null): string {
  return createHash('sha256')
    .update(`${source}\u0000${dedupKey ?? ''}`)
    .digest('base64url')
    .slice(0, 32);
}
