import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { SettingsPatch } from '../../server/config/settings-schema';
import type { Clock } from '../../server/lib/clock';
import { startServer, type HeraldServer, type StartServerOptions } from '../../server/index';
import { createTestDatabase, dropTestDatabase, keptDatabases, onPostgres } from './test-database';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

export interface ApiResult<T = any> {
  status: number;
  headers: Headers;
  body: { code: number; msg: string; data: T };
}

/** A fetch client that keeps the session cookie, like a browser tab. */
export class ConsoleClient {
  cookie = '';

  constructor(readonly baseUrl: string) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResult<T>> {
    const res = await fetch(`${this.baseUrl}/api/console${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...(this.cookie ? { Cookie: this.cookie } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      const pair = setCookie.split(';')[0];
      this.cookie = pair.endsWith('=') ? '' : pair;
    }
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? JSON.parse(text) : (undefined as any),
    };
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body?: unknown) {
    return this.request<T>('POST', path, body);
  }
  put<T = any>(path: string, body?: unknown) {
    return this.request<T>('PUT', path, body);
  }
  patch<T = any>(path: string, body?: unknown) {
    return this.request<T>('PATCH', path, body);
  }
  del<T = any>(path: string) {
    return this.request<T>('DELETE', path);
  }

  /** Like `request`, but throws unless the answer is code 200; returns `data`. */
  async ok<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await this.request<T>(method, path, body);
    if (r.body?.code !== 200)
      throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  }

  /** A V2 template from `fields` with the given instances, and its send token. */
  async createTemplate(
    fields: Record<string, unknown>,
    instances: InstanceSpec[],
  ): Promise<{ template: any; token: string }> {
    const template = await this.ok('POST', '/templates', fields);
    for (const inst of instances)
      await this.ok('POST', `/templates/${template.id}/instances`, inst);
    const { token } = await this.ok('GET', `/templates/${template.id}/token`);
    return { template, token };
  }
}

/** One text instance per channel: what most tests bind a template to. */
export const textInstances = (channelIds: number[]): InstanceSpec[] =>
  channelIds.map((channelId) => ({ channelId, contentType: 'text' }));

export interface InstanceSpec {
  channelId: number;
  contentType: 'text' | 'html' | 'markdown';
  enabled?: boolean;
  recipient?: string;
  dynamicRecipients?: boolean;
  templateCode?: string | null;
  atMobiles?: string;
  atAll?: boolean;
  /** Hosted instances: a public link per message, answered as hostMessageUrl. */
  publicLink?: boolean;
}

export interface TestHeraldOptions {
  dataDir?: string;
  /**
   * HERALD_* variables this Herald reads at start, over process.env. Never set them in
   * process.env instead: test files share worker processes, and another file's Herald starting
   * meanwhile would read them too.
   */
  env?: Record<string, string>;
  /** Create the admin and sign in (default true). */
  setup?: boolean;
  clock?: Clock;
  startDispatcher?: boolean;
  random?: () => number;
  /** Applied after start; by default retries are fast (50 ms base, no jitter) and V1 waits 10 s. */
  settings?: SettingsPatch;
  rendererDir?: string;
  port?: number;
  desktopSecret?: string;
  /** Passed through to startServer (the HTTP guards' settings). */
  allowedHosts?: StartServerOptions['allowedHosts'];
  corsOrigins?: StartServerOptions['corsOrigins'];
  maxConnections?: StartServerOptions['maxConnections'];
  httpTimeouts?: StartServerOptions['httpTimeouts'];
  /** As HERALD_TRUST_PROXY. */
  trustProxy?: string;
  /** As HERALD_METRICS and HERALD_METRICS_TOKEN. */
  metrics?: StartServerOptions['metrics'];
  /** As HERALD_SECRET_KEY and HERALD_SECRET_KEY_FILE. */
  secretKey?: string;
  secretKeyFile?: string;
  /** On a fresh PostgreSQL database even without HERALD_TEST_DATABASE=postgres. */
  postgres?: boolean;
  /** A PostgreSQL database to open, shared with other test Heralds (the caller drops it). */
  databaseUrl?: string;
}

export const ADMIN = { username: 'admin', password: 'correct horse battery' };

export interface TestHerald {
  url: string;
  dataDir: string;
  server: HeraldServer;
  console: ConsoleClient;
  /** POSTs JSON (or a raw string) to a path, without the session cookie. */
  post<T = any>(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResult<T>>;
  sendV1<T = any>(body: unknown, headers?: Record<string, string>): Promise<ApiResult<T>>;
  sendV2<T = any>(body: unknown, headers?: Record<string, string>): Promise<ApiResult<T>>;
  createChannel(type: string, config?: Record<string, unknown>, name?: string): Promise<any>;
  createTask(name: string, instances: InstanceSpec[]): Promise<{ task: any; token: string }>;
  createTemplate(
    fields: Record<string, unknown>,
    instances: InstanceSpec[],
  ): Promise<{ template: any; token: string }>;
  /** Polls until fn returns a truthy value. */
  waitFor<T>(
    fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
    timeoutMs?: number,
  ): Promise<T>;
  /**
   * A teammate's browser: the admin creates the account (a unique name unless given), and the
   * returned client is signed in as it.
   */
  signedInAs(
    role: 'admin' | 'editor' | 'viewer',
    username?: string,
  ): Promise<{ client: ConsoleClient; user: any; password: string }>;
  /** Stops the server; keeps the data dir (for restart tests) unless `removeData`. */
  close(removeData?: boolean): Promise<void>;
}

let counter = 0;

/** Starts a real Herald (real SQLite file, real HTTP on loopback) on a temporary data dir. */
export async function startTestHerald(opts: TestHeraldOptions = {}): Promise<TestHerald> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'herald-test-'));
  // On PostgreSQL a data folder has its database: a restart on the folder finds its data.
  const database =
    opts.databaseUrl === undefined && (opts.postgres ?? onPostgres())
      ? (keptDatabases.get(dataDir) ?? (await createTestDatabase()))
      : undefined;
  if (database) keptDatabases.set(dataDir, database);
  const server = await startServer({
    env: opts.env ? { ...process.env, ...opts.env } : undefined,
    databaseUrl: opts.databaseUrl ?? database?.url,
    host: '127.0.0.1',
    port: opts.port ?? 0,
    dataDir,
    clock: opts.clock,
    startDispatcher: opts.startDispatcher,
    random: opts.random ?? (() => 0.5),
    rendererDir: opts.rendererDir,
    desktopSecret: opts.desktopSecret,
    allowedHosts: opts.allowedHosts,
    corsOrigins: opts.corsOrigins,
    maxConnections: opts.maxConnections,
    httpTimeouts: opts.httpTimeouts,
    trustProxy: opts.trustProxy,
    metrics: opts.metrics,
    secretKey: opts.secretKey,
    secretKeyFile: opts.secretKeyFile,
  });
  const client = new ConsoleClient(server.url);
  if (opts.setup !== false) {
    const status = await client.get('/status');
    if (status.body.data.setupRequired)
      await client.ok('POST', '/setup', { ...ADMIN, setupCode: server.setupCode() });
    else await client.ok('POST', '/login', ADMIN);
    const { retry, ...rest } = opts.settings ?? {};
    await client.ok('PUT', '/settings', {
      v1WaitMs: 10_000,
      ...rest,
      retry: { baseDelayMs: 50, maxDelayMs: 1000, jitter: 0, ...retry },
    });
  }
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  const herald: TestHerald = {
    url: server.url,
    dataDir,
    server,
    console: client,
    post,
    sendV1: (body, headers) => post('/api/v1/message/send', body, headers),
    sendV2: (body, headers) => post('/api/v2/message/send', body, headers),
    createChannel: (type, config = {}, name) =>
      client.ok('POST', '/channels', { name: name ?? `${type}-${++counter}`, type, config }),
    async createTask(name, instances) {
      const task = await client.ok('POST', '/tasks', { name });
      for (const inst of instances) await client.ok('POST', `/tasks/${task.id}/instances`, inst);
      const { token } = await client.ok('GET', `/tasks/${task.id}/token`);
      return { task, token };
    },
    createTemplate: (fields, instances) =>
      client.createTemplate({ name: `template-${++counter}`, ...fields }, instances),
    async signedInAs(role, username = `${role}-${++counter}`) {
      const password = `${username} password`;
      const user = await client.ok('POST', '/users', { username, role, password });
      const teammate = new ConsoleClient(server.url);
      await teammate.ok('POST', '/login', { username, password });
      return { client: teammate, user, password };
    },
    async waitFor(fn, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await fn();
        if (value) return value;
        if (Date.now() > deadline) throw new Error('waitFor: condition not met in time');
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close(removeData = false) {
      await server.close();
      if (removeData) {
        rmSync(dataDir, { recursive: true, force: true });
        if (database) {
          keptDatabases.delete(dataDir);
          await dropTestDatabase(database.name);
        }
      }
    },
  };
  return herald;
}
