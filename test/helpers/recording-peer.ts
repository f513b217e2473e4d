import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: unknown;
}

export type PeerReply =
  | {
      status: number;
      body?: string;
      headers?: Record<string, string>;
      /** Holds the request this long before answering, so many stay in flight at once. */
      delayMs?: number;
    }
  | 'hang';

/**
 * A loopback HTTP server that records every request and answers from a script (then a
 * default), e.g. "fail twice with 503, then 200", or "hang" to keep a request in flight.
 */
export interface HttpPeer {
  url: string;
  received: ReceivedRequest[];
  /** Answers queued for the next requests, in order. */
  script: PeerReply[];
  defaultReply: PeerReply;
  /** Resolves once `n` requests have arrived. */
  waitForRequests(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /**
   * Resolves once no client holds a connection open: after a client process is killed, every
   * request it had written has been read and recorded by then (its sockets close after their
   * data).
   */
  waitForNoConnections(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpPeer(
  defaultReply: PeerReply = { status: 200, body: '{"ok":true}' },
): Promise<HttpPeer> {
  const received: ReceivedRequest[] = [];
  const hanging: ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const open = new Set<Socket>();
  const idleWaiters: Array<() => void> = [];
  const peer: HttpPeer = {
    url: '',
    received,
    script: [],
    defaultReply,
    waitForRequests(n, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length >= n) {
            clearTimeout(timer);
            resolve(received.slice(0, n));
            return true;
          }
          return false;
        };
        const timer = setTimeout(
          () => reject(new Error(`peer got ${received.length} of ${n} requests`)),
          timeoutMs,
        );
        // A waiter stays registered until its count is reached: every request re-checks it.
        const waiter = () => {
          if (!check()) waiters.push(waiter);
        };
        if (!check()) waiters.push(waiter);
      });
    },
    waitForNoConnections(timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        if (open.size === 0) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`the peer still has ${open.size} connections open`)),
          timeoutMs,
        );
        idleWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        json,
      });
      for (const w of waiters.splice(0)) w();
      const reply = peer.script.length > 0 ? peer.script.shift()! : peer.defaultReply;
      if (reply === 'hang') {
        hanging.push(res);
        return;
      }
      const answer = () => {
        res.writeHead(reply.status, {
          'Content-Type': 'application/json',
          ...(reply.headers ?? {}),
        });
        res.end(reply.body ?? '');
      };
      if (!reply.delayMs) answer();
      else {
        hanging.push(res);
        setTimeout(() => {
          if (!res.destroyed) answer();
        }, reply.delayMs);
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => {
      open.delete(socket);
      if (open.size === 0) for (const w of idleWaiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return peer;
}
