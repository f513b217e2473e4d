import { randomBytes } from 'node:crypto';

import pg, { type Client, type Pool } from 'pg';

import type { DeliveryStatus } from '../models/delivery';
import type { SendStatus } from '../models/send';
import type { HeraldEventMap, HeraldEvents, HostedMessageEvent } from '../../events';
import { errorMessage } from '../../lib/errors';
import { createLogger } from '../../lib/logger';

const log = createLogger('events');

/** The one channel every Herald process on a database listens on. */
export const EVENT_CHANNEL = 'herald_events';
/** PostgreSQL refuses payloads of 8000 bytes or more; a batch is cut below that. */
const MAX_PAYLOAD_BYTES = 7_000;
const RECONNECT_MS = 1_000;

/** Events as they travel: ids and statuses only, a few dozen bytes each. */
type WireEvent =
  | ['d', number, number, DeliveryStatus]
  | ['s', number, SendStatus]
  | ['m', number]
  | ['c', number]
  | ['x', number]
  | ['r', number, number | null, boolean, number]
  | ['e', number]
  | ['p', number, string]
  | ['g', 'settings' | 'sources'];

interface Wire {
  /** The process that emitted the events: it drops its own batch when it comes back. */
  o: string;
  e: WireEvent[];
}

export type RemoteEvent =
  | { name: 'delivery'; payload: HeraldEventMap['delivery'][0] }
  | { name: 'send'; payload: HeraldEventMap['send'][0] }
  | { name: 'message'; payload: { id: number } }
  | { name: 'schedule'; payload: { id: number } }
  | { name: 'scheduleRun'; payload: { id: number } }
  | { name: 'reads'; payload: HeraldEventMap['reads'][0] }
  | { name: 'messageDeleted'; payload: { id: number } }
  | { name: 'messagesPruned'; payload: HeraldEventMap['messagesPruned'][0] }
  | { name: 'configuration'; payload: HeraldEventMap['configuration'][0] };

export interface EventRelayDeps {
  url: string;
  /** Where NOTIFYs are sent from (autocommit statements). */
  pool: Pick<Pool, 'query'>;
  events: HeraldEvents;
  /** A hosted message another process stored, read back in full for this one's listeners. */
  loadMessage(id: number): Promise<HostedMessageEvent | null>;
}

/**
 * Live events across processes. Each process LISTENs on one dedicated connection; the events it
 * emits on its HeraldEvents (always after the write they describe committed) are batched and
 * NOTIFYed, and the events of the other processes are emitted again on its own HeraldEvents, so
 * a console stream or a V1 wait on process A sees what process B did. Its own events come back
 * too (NOTIFY reaches every listener): the origin id drops them, so nothing is emitted twice.
 *
 * Delivery is best effort, as the in-process events are: while the listening connection is down
 * (it reconnects every second) events of other processes are missed; the console reloads lists
 * on reconnect, and a V1 wait reads the state at its end.
 */
export class PostgresEventRelay {
  private readonly origin = randomBytes(6).toString('base64url');
  private listener: Client | null = null;
  private closed = false;
  private relaying = false;
  private outbox: WireEvent[] = [];
  private flushing: Promise<void> | null = null;
  private readonly remoteListeners: Array<(e: RemoteEvent) => void> = [];
  private readonly detach: Array<() => void> = [];

  constructor(private readonly deps: EventRelayDeps) {}

  /** Listens, then forwards this process's events; resolves once the LISTEN is in place. */
  async start(): Promise<void> {
    await this.listen();
    const { events } = this.deps;
    const on = <K extends keyof HeraldEventMap>(
      name: K,
      toWire: (...args: HeraldEventMap[K]) => WireEvent,
    ) => {
      const listener = ((...args: HeraldEventMap[K]) => {
        // Events of other processes, emitted here again, are not sent back out.
        if (!this.relaying) this.queue(toWire(...args));
      }) as Parameters<HeraldEvents['on']>[1];
      events.on(name, listener);
      this.detach.push(() => events.off(name, listener));
    };
    on('delivery', (d) => ['d', d.id, d.sendId, d.status]);
    on('send', (s) => ['s', s.id, s.status]);
    on('message', (m) => ['m', m.id]);
    on('schedule', (c) => ['c', c.id]);
    on('scheduleRun', (x) => ['x', x.id]);
    on('reads', (r) => ['r', r.userId, r.id, r.read, r.unreadCount]);
    on('messageDeleted', (m) => ['e', m.id]);
    on('messagesPruned', (p) => ['p', p.count, p.before]);
    on('configuration', (g) => ['g', g.what]);
  }

  /** Called with every event another process emitted, after it is emitted here. */
  onRemote(listener: (e: RemoteEvent) => void): void {
    this.remoteListeners.push(listener);
  }

  /** Sends what is still queued, then stops listening. */
  async close(): Promise<void> {
    for (const d of this.detach.splice(0)) d();
    await this.flush();
    this.closed = true;
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.deps.url });
    client.on('error', (err) => {
      log.warn(`the event listener's connection failed (${err.message}); reconnecting`);
      this.reconnect(client);
    });
    // The server closed the connection without an error (a restart, an administrator).
    client.on('end', () => this.reconnect(client));
    client.on('notification', (n) => {
      if (n.channel === EVENT_CHANNEL && n.payload) this.receive(n.payload);
    });
    await client.connect();
    await client.query(`LISTEN ${EVENT_CHANNEL}`);
    this.listener = client;
  }

  private reconnect(failed: Client): void {
    if (this.closed || this.listener !== failed) return;
    this.listener = null;
    void failed.end().catch(() => undefined);
    const retry = () => {
      if (this.closed) return;
      this.listen().catch((err) => {
        log.warn(`listening for other processes' events failed: ${errorMessage(err)}`);
        setTimeout(retry, RECONNECT_MS).unref();
      });
    };
    setTimeout(retry, RECONNECT_MS).unref();
  }

  private queue(event: WireEvent): void {
    this.outbox.push(event);
    // Events of one turn (a write cycle's outcomes) travel together.
    if (!this.flushing) this.flushing = new Promise((r) => setImmediate(r)).then(() => this.send());
  }

  private async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async send(): Promise<void> {
    try {
      while (this.outbox.length > 0) {
        const batch = this.outbox.splice(0);
        for (const payload of payloads(this.origin, batch)) {
          await this.deps.pool.query({
            name: 'herald_notify',
            text: 'SELECT pg_notify($1, $2)',
            values: [EVENT_CHANNEL, payload],
          });
        }
      }
    } catch (err) {
      this.outbox = [];
      log.warn(`telling other processes about events failed: ${errorMessage(err)}`);
    } finally {
      this.flushing = null;
    }
  }

  private receive(payload: string): void {
    let wire: Wire;
    try {
      wire = JSON.parse(payload) as Wire;
    } catch {
      return;
    }
    if (wire.o === this.origin || !Array.isArray(wire.e)) return;
    for (const e of wire.e) {
      const remote = fromWire(e);
      if (!remote) continue;
      if (remote.name === 'message') void this.emitMessage(remote.payload.id);
      else this.emit(remote);
    }
  }

  private async emitMessage(id: number): Promise<void> {
    try {
      const message = await this.deps.loadMessage(id);
      if (message) this.emit({ name: 'message', payload: message });
    } catch (err) {
      log.warn(`reading hosted message ${id} for the live stream failed: ${errorMessage(err)}`);
    }
  }

  private emit(remote: RemoteEvent): void {
    this.relaying = true;
    try {
      // The listeners' own errors stay theirs: the relay goes on with the next event.
      (this.deps.events.emit as (name: string, payload: unknown) => boolean)(
        remote.name,
        remote.payload,
      );
    } catch (err) {
      log.error(`a listener of ${remote.name} events failed: ${errorMessage(err)}`);
    } finally {
      this.relaying = false;
    }
    for (const l of this.remoteListeners) l(remote);
  }
}

function fromWire(e: WireEvent): RemoteEvent | null {
  switch (e[0]) {
    case 'd':
      return { name: 'delivery', payload: { id: e[1], sendId: e[2], status: e[3] } };
    case 's':
      return { name: 'send', payload: { id: e[1], status: e[2] } };
    case 'm':
      return { name: 'message', payload: { id: e[1] } };
    case 'c':
      return { name: 'schedule', payload: { id: e[1] } };
    case 'x':
      return { name: 'scheduleRun', payload: { id: e[1] } };
    case 'r':
      return {
        name: 'reads',
        payload: { userId: e[1], id: e[2], read: e[3], unreadCount: e[4] },
      };
    case 'e':
      return { name: 'messageDeleted', payload: { id: e[1] } };
    case 'p':
      return { name: 'messagesPruned', payload: { count: e[1], before: e[2] } };
    case 'g':
      return e[1] === 'settings' || e[1] === 'sources'
        ? { name: 'configuration', payload: { what: e[1] } }
        : null;
    default:
      return null;
  }
}

/** Cuts a batch into NOTIFY payloads below PostgreSQL's limit. */
export function payloads(origin: string, events: WireEvent[]): string[] {
  const out: string[] = [];
  let part: string[] = [];
  let size = 0;
  const close = () => {
    if (part.length > 0) out.push(`{"o":${JSON.stringify(origin)},"e":[${part.join(',')}]}`);
    part = [];
    size = 0;
  };
  for (const e of events) {
    const text = JSON.stringify(e);
    if (size + text.length + 1 > MAX_PAYLOAD_BYTES - 64) close();
    part.push(text);
    size += text.length + 1;
  }
  close();
  return out;
}
