import { API_BASE } from './http-client';
import type { MessageEvent as HostedMessageEvent } from './types';

export interface ConsoleEventHandlers {
  message?: (event: HostedMessageEvent) => void;
  delivery?: (event: { id: number; sendId: number; status: string }) => void;
  send?: (event: { id: number; status: string }) => void;
}

/**
 * Subscribes to the console's Server-Sent Events. EventSource reconnects by itself after a
 * dropped connection; the returned function closes the stream.
 */
export function subscribeConsoleEvents(handlers: ConsoleEventHandlers): () => void {
  if (typeof EventSource === 'undefined') return () => {};
  const source = new EventSource(`${API_BASE}/events`, { withCredentials: true });
  const on = <K extends keyof ConsoleEventHandlers>(name: K) => {
    const handler = handlers[name];
    if (!handler) return;
    source.addEventListener(name, (ev) => {
      try {
        handler(JSON.parse((ev as globalThis.MessageEvent<string>).data));
      } catch {
        // A malformed event is dropped; the next list refresh shows the truth anyway.
      }
    });
  };
  on('message');
  on('delivery');
  on('send');
  return () => source.close();
}
