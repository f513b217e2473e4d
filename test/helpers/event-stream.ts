import type { ConsoleClient } from './herald';

/** A console event stream read over real HTTP, as a browser's EventSource would receive it. */
export interface EventStream {
  /** Everything received so far. */
  readonly text: string;
  /** The `data` of every event named `name` received so far, parsed. */
  events<T = unknown>(name: string): T[];
  /** Reads on until `done(text)`; throws if the stream ends first. */
  until(done: (text: string) => boolean): Promise<void>;
  close(): void;
}

/** Opens `/api/console/events` with the client's session cookie. */
export async function openEventStream(
  baseUrl: string,
  client: ConsoleClient,
): Promise<EventStream> {
  const ac = new AbortController();
  const res = await fetch(`${baseUrl}/api/console/events`, {
    headers: { Cookie: client.cookie },
    signal: ac.signal,
  });
  if (res.status !== 200) throw new Error(`the stream answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    get text() {
      return text;
    },
    events<T>(name: string): T[] {
      return [...text.matchAll(/^event: (.+)\ndata: (.*)\n\n/gm)]
        .filter((m) => m[1] === name)
        .map((m) => JSON.parse(m[2]) as T);
    },
    async until(done) {
      while (!done(text)) {
        const { value, done: ended } = await reader.read();
        if (ended) throw new Error(`the stream ended: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    },
    close: () => ac.abort(),
  };
}
