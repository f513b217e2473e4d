import type {
  DeliveryEvent,
  MessageDeletedEvent,
  MessagesPrunedEvent,
  MessageEvent as HostedMessageEvent,
  ReadEvent,
  ScheduleEvent,
  SendEvent,
} from '@contract';

import { API_BASE } from './http-client';

/**
 * Where the console's event stream stands: `connecting` before the first connection, `open`
 * while events flow, `reconnecting` after the connection dropped until it is back.
 */
export type StreamState = 'connecting' | 'open' | 'reconnecting';

export interface ConsoleEventHandlers {
  message?: (event: HostedMessageEvent) => void;
  /** The signed-in person's read state changed (in this or another of their windows). */
  read?: (event: ReadEvent) => void;
  /** Someone deleted a hosted message. */
  messageDeleted?: (event: MessageDeletedEvent) => void;
  /** Retention deleted old hosted messages. */
  messagesPruned?: (event: MessagesPrunedEvent) => void;
  delivery?: (event: DeliveryEvent) => void;
  send?: (event: SendEvent) => void;
  /** A schedule was created, changed, deleted, or ran: its times and last send may be new. */
  schedule?: (event: ScheduleEvent) => void;
  /** Every change of the stream's state. */
  state?: (state: StreamState) => void;
}

/**
 * How long to wait before opening a new stream after the browser gave up on one. EventSource
 * retries a dropped connection by itself, but not after an error answer (a proxy's 502, a 401
 * once the session ended): then it closes for good.
 */
export const REOPEN_AFTER_CLOSE_MS = 5_000;

const EVENT_NAMES = [
  'message',
  'read',
  'messageDeleted',
  'messagesPruned',
  'delivery',
  'send',
  'schedule',
] as const;

/**
 * Subscribes to the console's Server-Sent Events and reports the connection state; the returned
 * function closes the stream. Without EventSource (an old browser) nothing is subscribed and
 * the state stays `connecting`.
 */
export function subscribeConsoleEvents(handlers: ConsoleEventHandlers): () => void {
  if (typeof EventSource === 'undefined') return () => {};
  let source: EventSource | null = null;
  let reopenTimer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  const open = (): void => {
    reopenTimer = null;
    const current = new EventSource(`${API_BASE}/events`, { withCredentials: true });
    source = current;
    current.onopen = () => handlers.state?.('open');
    current.onerror = () => {
      if (stopped || source !== current) return;
      handlers.state?.('reconnecting');
      if (current.readyState === EventSource.CLOSED) {
        current.close();
        reopenTimer = setTimeout(open, REOPEN_AFTER_CLOSE_MS);
      }
    };
    for (const name of EVENT_NAMES) {
      const handler = handlers[name] as ((event: unknown) => void) | undefined;
      if (!handler) continue;
      current.addEventListener(name, (ev) => {
        try {
          handler(JSON.parse((ev as globalThis.MessageEvent<string>).data));
        } catch {
          // A malformed event is dropped; the next list refresh shows the truth anyway.
        }
      });
    }
  };

  handlers.state?.('connecting');
  open();
  return () => {
    stopped = true;
    if (reopenTimer) clearTimeout(reopenTimer);
    source?.close();
  };
}
