/**
 * What a Web Push message from Herald becomes on screen, and how a click on it reaches the
 * reader: shared by the service worker (renderer/src/sw.ts) and the page, so both read one shape.
 */

/** The notification the service worker shows for one push. */
export interface PushNotice {
  title: string;
  body: string;
  /** One notification per message: a second push for it replaces the first. */
  tag: string;
  data: { messageId: number | null; priority: number | null; url: string };
  /** Priority 5: kept on screen until the person acts on it. */
  urgent: boolean;
  /** Softened by the person's quiet hours: shown without sound or vibration. */
  silent: boolean;
}

/** The reader's address of a message (history mode), or the reader itself. */
export function messagePath(id: number | null): string {
  return id === null ? '/messages' : `/messages/${id}`;
}

function field(payload: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(payload, name) ? payload[name] : undefined;
}

const positiveInt = (v: unknown): number | null =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;

/**
 * The notification for a push's text: Herald sends JSON with the title, a summary (`body`),
 * the message's id and its priority. Anything else (an empty push, text that is not that JSON)
 * still shows a notification, because a push that shows none counts against the site in
 * browsers that require one per push.
 */
export function notificationOfPush(text: string | null): PushNotice {
  let payload: Record<string, unknown> = {};
  try {
    const parsed: unknown = text ? JSON.parse(text) : null;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      payload = parsed as Record<string, unknown>;
    }
  } catch {
    payload = text ? { summary: text } : {};
  }
  const title = field(payload, 'title');
  // Herald sends the summary as `body`, as a notification names it; `summary` is read too.
  const summary = field(payload, 'body') ?? field(payload, 'summary');
  const messageId = positiveInt(field(payload, 'messageId'));
  const priority = positiveInt(field(payload, 'priority'));
  return {
    title: typeof title === 'string' && title.trim() ? title : 'Herald',
    body: typeof summary === 'string' ? summary : '',
    tag: messageId === null ? 'herald' : `herald-message-${messageId}`,
    data: { messageId, priority, url: messagePath(messageId) },
    urgent: priority === 5,
    silent: field(payload, 'silent') === true,
  };
}

/** What the service worker posts to an open console window when its notification is clicked. */
export interface OpenMessageRequest {
  type: 'herald:open-message';
  messageId: number | null;
}

export function openMessageRequest(messageId: number | null): OpenMessageRequest {
  return { type: 'herald:open-message', messageId };
}

export function isOpenMessageRequest(value: unknown): value is OpenMessageRequest {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as OpenMessageRequest).type === 'herald:open-message'
  );
}
