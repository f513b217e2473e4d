import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

/**
 * A Web Push service on loopback, checking what a real one checks (RFC 8030, 8291, 8292): it
 * records every push, can say whether its VAPID `Authorization` holds (an ES256 JWT signed by
 * the key in `k=`, for this origin, not expired, with a `sub`), decrypts an aes128gcm body with
 * a browser's keys, and answers 201 unless told otherwise (410, 429, 500…). Herald is pointed at
 * it with HERALD_WEB_PUSH_ENDPOINTS=<origin>. The console's Chromium end-to-end test reuses it.
 */

/** http_ece has no types; the one call the tests make. */
const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(
    body: Buffer,
    params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string },
  ): Buffer;
};

/** One push as it arrived. */
export interface RecordedPush {
  /** The path after the origin: which subscription it was for. */
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** What this service answered. */
  answered: number;
}

/** What a browser makes when it subscribes: its ECDH P-256 pair and a 16-byte auth secret. */
export interface BrowserKeys {
  /** For the subscription's `keys`: base64url, as PushSubscription.toJSON() gives them. */
  p256dh: string;
  auth: string;
  /** The private half, kept by the browser to decrypt. */
  ecdh: ECDH;
}

/** A subscription's keys, made as a browser makes them. */
export function browserKeys(): BrowserKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
    ecdh,
  };
}

/** The result of checking a push's VAPID header; `problems` is empty when it holds. */
export interface VapidCheck {
  problems: string[];
  /** The `k=` public key (base64url), when present. */
  publicKey: string | null;
  claims: { aud?: unknown; exp?: unknown; sub?: unknown } | null;
}

export interface Answer {
  status: number;
  /** Sent as Retry-After (seconds). */
  retryAfter?: number;
}

export interface LocalPushService {
  /** `http://127.0.0.1:<port>`: what HERALD_WEB_PUSH_ENDPOINTS lists. */
  origin: string;
  /** A fresh endpoint URL on this service (one per subscribing browser). */
  endpoint(name?: string): string;
  /** Every push received, oldest first. */
  readonly pushes: RecordedPush[];
  /** The pushes for one endpoint. */
  pushesTo(endpoint: string): RecordedPush[];
  /** Answers the next pushes to `endpoint` with these, one each, then 201 again. */
  answerNext(endpoint: string, ...answers: Array<number | Answer>): void;
  /** Answers every push to `endpoint` with `status` until told otherwise (null: back to 201). */
  answerAlways(endpoint: string, status: number | null): void;
  /** Resolves once `count` pushes have arrived in all (or to `endpoint`). */
  waitForPushes(count: number, endpoint?: string, timeoutMs?: number): Promise<RecordedPush[]>;
  /** Checks a push's `Authorization: vapid t=…, k=…` as a push service does. */
  checkVapid(push: RecordedPush): VapidCheck;
  /** The push's plaintext, decrypted with the subscribing browser's keys. */
  decrypt(push: RecordedPush, keys: BrowserKeys): Buffer;
  close(): Promise<void>;
}

/** Starts the service on 127.0.0.1 with a free port. */
export async function startLocalPushService(): Promise<LocalPushService> {
  const pushes: RecordedPush[] = [];
  const queued = new Map<string, Answer[]>();
  const always = new Map<string, number>();
  const waiters = new Set<() => void>();
  let counter = 0;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const answer: Answer = always.has(path)
        ? { status: always.get(path)! }
        : (queued.get(path)?.shift() ?? { status: 201 });
      pushes.push({
        path,
        headers: req.headers,
        body: Buffer.concat(chunks),
        answered: answer.status,
      });
      const headers: Record<string, string> = {};
      if (answer.retryAfter !== undefined) headers['Retry-After'] = String(answer.retryAfter);
      if (answer.status === 201) headers.Location = `${origin}/messages/${pushes.length}`;
      res.writeHead(answer.status, headers);
      res.end(answer.status >= 400 ? `answered ${answer.status} as told` : '');
      for (const wake of [...waiters]) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const pathOf = (endpoint: string) => new URL(endpoint).pathname;

  return {
    origin,
    pushes,
    endpoint: (name = `sub-${++counter}`) =>
      `${origin}/push/${name}-${randomBytes(6).toString('hex')}`,
    pushesTo: (endpoint) => pushes.filter((p) => p.path === pathOf(endpoint)),
    answerNext(endpoint, ...answers) {
      const path = pathOf(endpoint);
      queued.set(path, [
        ...(queued.get(path) ?? []),
        ...answers.map((a) => (typeof a === 'number' ? { status: a } : a)),
      ]);
    },
    answerAlways(endpoint, status) {
      if (status === null) always.delete(pathOf(endpoint));
      else always.set(pathOf(endpoint), status);
    },
    waitForPushes(count, endpoint, timeoutMs = 10_000) {
      const matching = () =>
        endpoint ? pushes.filter((p) => p.path === pathOf(endpoint)) : pushes;
      return new Promise((resolve, reject) => {
        const check = () => {
          if (matching().length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`waited for ${count} pushes, ${matching().length} arrived`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    checkVapid: (push) => checkVapid(push, origin),
    decrypt(push, keys) {
      return ece.decrypt(push.body, {
        version: 'aes128gcm',
        privateKey: keys.ecdh,
        authSecret: keys.auth,
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** RFC 8292: `vapid t=<JWT>, k=<public key>`, the JWT ES256 over the key, aud the origin. */
function checkVapid(push: RecordedPush, origin: string): VapidCheck {
  const problems: string[] = [];
  const header = String(push.headers.authorization ?? '');
  const match = /^vapid\s+(.*)$/i.exec(header);
  if (!match)
    return { problems: ['no "vapid" Authorization header'], publicKey: null, claims: null };
  const params = new Map(
    match[1]!.split(',').map((part) => {
      const [name, ...value] = part.trim().split('=');
      return [name!.trim(), value.join('=').trim()] as const;
    }),
  );
  const token = params.get('t');
  const publicKey = params.get('k') ?? null;
  if (!token) problems.push('no t= (the JWT)');
  if (!publicKey) problems.push('no k= (the public key)');
  if (!token || !publicKey) return { problems, publicKey, claims: null };
  const [head, body, signature] = token.split('.');
  if (!head || !body || !signature)
    return { problems: ['t= is not a JWT'], publicKey, claims: null };
  const jwtHeader = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string };
  if (jwtHeader.alg !== 'ES256') problems.push(`alg is ${String(jwtHeader.alg)}, not ES256`);
  const point = Buffer.from(publicKey, 'base64url');
  if (point.length !== 65 || point[0] !== 4) {
    problems.push('k= is not an uncompressed P-256 point');
    return { problems, publicKey, claims: null };
  }
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const signed = verify(
    'sha256',
    Buffer.from(`${head}.${body}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) problems.push('the JWT signature does not verify with k=');
  const claims = JSON.parse(
    Buffer.from(body, 'base64url').toString('utf8'),
  ) as VapidCheck['claims'];
  if (claims?.aud !== origin) problems.push(`aud is ${String(claims?.aud)}, not ${origin}`);
  if (typeof claims?.exp !== 'number' || claims.exp * 1000 <= Date.now()) {
    problems.push(`exp ${String(claims?.exp)} is not in the future`);
  }
  if (typeof claims?.sub !== 'string' || claims.sub === '') problems.push('no sub');
  return { problems, publicKey, claims };
}
