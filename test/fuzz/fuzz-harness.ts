import { randomBytes } from 'node:crypto';

import fc from 'fast-check';

import { ADMIN, startTestHerald, type TestHerald } from '../helpers/herald';
import { consoleRequest, JUNK_COOKIE_AFTER, JUNK_COOKIE_BEFORE } from './console-requests';
import { MARK, type FuzzRequest } from './fuzz-values';
import { v1Request, v2Request } from './send-requests';
import { RawHttpError, rawRequest, type RawResponse } from './socket-request';

/**
 * Throws generated requests at a real Herald (real SQLite file, real HTTP on loopback) and
 * sorts every answer: the contract wants each one below 500 and in the envelope, and the
 * server alive at the end. Used by the CI fuzz test (a few hundred runs) and `npm run fuzz`.
 */

export type TargetName = 'v1' | 'v2' | 'console';

export const TARGETS: Record<TargetName, fc.Arbitrary<FuzzRequest>> = {
  v1: v1Request,
  v2: v2Request,
  console: consoleRequest,
};

export type Verdict =
  | { ok: true; status: number; note?: 'stream' | 'http-parser' }
  | {
      ok: false;
      status: number | null;
      kind: '5xx' | 'not-envelope' | 'no-answer';
      detail: string;
    };

export interface Outcome {
  verdict: Verdict;
  /** Errors the server logged while answering (the cause of a 500). */
  serverErrors: string[];
}

/** The console request's Cookie header: the session, with any generated junk around it. */
function withSessionCookie(headers: Array<[string, string]>, session: string) {
  const before = headers.find(([k]) => k === JUNK_COOKIE_BEFORE)?.[1];
  const after = headers.find(([k]) => k === JUNK_COOKIE_AFTER)?.[1];
  const cookie = [before, session, after].filter((c) => c !== undefined).join('; ');
  return [
    ...headers.filter(([k]) => k !== JUNK_COOKIE_BEFORE && k !== JUNK_COOKIE_AFTER),
    ['Cookie', cookie] as [string, string],
  ];
}

/** What a failure is, without the values that vary from input to input. */
export function signatureOf(target: TargetName, outcome: Outcome): string | null {
  const { verdict } = outcome;
  if (verdict.ok) return null;
  const cause = (outcome.serverErrors[0] ?? verdict.detail)
    .split('\n')[0]
    // "<time> [ERROR] [http] POST /api/...: cause" → "cause"
    .replace(/^\S+ \[[A-Z]+\] \[[^\]]*\] /, '')
    .replace(/^[A-Z-]+ \S*: /, '')
    // Quoted input echoed in the cause varies per run; the kind of failure does not.
    .replace(/unrecognized token: [\s\S]*/, 'unrecognized token: …')
    .replace(/'[^']*'/g, "'…'")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 120);
  return `${target} ${verdict.kind} ${verdict.status ?? '-'}: ${cause}`;
}

interface Fixtures {
  taskId: number;
  taskToken: string;
  templateId: number;
  templateToken: string;
  channelId: number;
  instanceId: number;
  messageId: number;
  sendId: number;
  deliveryId: number;
}

/** Settings the harness keeps: fuzzed PUT /settings may change them, so they are put back. */
const BASELINE_SETTINGS = {
  allowTaskId: true,
  rateLimitPerMinute: 0,
  v1WaitMs: 2000,
  retry: { maxAttempts: 2, baseDelayMs: 50, maxDelayMs: 200, jitter: 0 },
};

const isEnvelope = (status: number, text: string): boolean => {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    return (
      typeof body === 'object' &&
      body !== null &&
      body.code === status &&
      typeof body.msg === 'string' &&
      'data' in body
    );
  } catch {
    return false;
  }
};

/**
 * Sorts one answer. A 4xx with no body and no type would be Node's own HTTP server answering
 * before Herald saw the request; it is counted apart, not as a failure. Since issue 26 none is
 * expected: the parser's refusals (bad bytes, a head over 16 KiB), a missing `Host` and an
 * unknown `Expect` all come in the envelope (server/lib/client-error.ts, the Host allow-list).
 */
export function judge(method: string, res: RawResponse): Verdict {
  if (res.status >= 500)
    return { ok: false, status: res.status, kind: '5xx', detail: res.body.slice(0, 200) };
  if (res.stream) return { ok: true, status: res.status, note: 'stream' };
  if (res.status >= 400 && res.body === '' && !res.headers['content-type'])
    return { ok: true, status: res.status, note: 'http-parser' };
  if (method === 'HEAD') return { ok: true, status: res.status };
  if (!isEnvelope(res.status, res.body))
    return {
      ok: false,
      status: res.status,
      kind: 'not-envelope',
      detail: `${res.headers['content-type'] ?? 'no type'}: ${res.body.slice(0, 120)}`,
    };
  return { ok: true, status: res.status };
}

export class FuzzHarness {
  private fixtures!: Fixtures;
  private cookie = '';
  private captured: string[] = [];
  private readonly originalError = console.error;

  private constructor(
    readonly herald: TestHerald,
    private readonly originalLogLevel: string | undefined,
  ) {}

  /** Starts Herald on a fresh data folder, signs in and creates a channel, task, template. */
  static async start(): Promise<FuzzHarness> {
    const originalLogLevel = process.env.HERALD_LOG;
    // The server's error log names the cause of each 500; it is read per request, not printed.
    process.env.HERALD_LOG = 'error';
    // Read as text lines ("<time> [ERROR] [http] …"), whatever the terminal.
    process.env.HERALD_LOG_FORMAT = 'text';
    const herald = await startTestHerald({ settings: BASELINE_SETTINGS });
    const harness = new FuzzHarness(herald, originalLogLevel);
    console.error = (...args: unknown[]) => {
      harness.captured.push(args.map(String).join('\n'));
    };
    harness.cookie = herald.console.cookie;
    await harness.createFixtures();
    return harness;
  }

  get url(): string {
    return this.herald.url;
  }

  private async createFixtures(): Promise<void> {
    const { herald } = this;
    const channel = await herald.createChannel('hosted', {}, `fuzz inbox ${Date.now()}`);
    const { task, token: taskToken } = await herald.createTask(`fuzz task ${Date.now()}`, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    const { template, token: templateToken } = await herald.createTemplate(
      {
        placeholders: [
          { key: 'host', label: 'Host' },
          { key: 'level', label: 'Level', default: 'warning' },
        ],
        text: 'Disk on {{host}} is at {{level}}.',
        html: '<p>Disk on <b>{{host}}</b> is at {{level}}.</p>',
        markdown: '**{{host}}**: {{level}}',
      },
      [
        { channelId: channel.id, contentType: 'html' },
        { channelId: channel.id, contentType: 'markdown' },
      ],
    );
    const sent = await herald.sendV2({
      token: templateToken,
      title: 'fuzz seed',
      placeholders: { host: 'backup-01' },
    });
    if (sent.body?.code !== 200) throw new Error(`seed send failed: ${JSON.stringify(sent.body)}`);
    const instances = await herald.console.ok('GET', `/tasks/${task.id}/instances`);
    // The hosted delivery is stored by the dispatcher after the send is answered.
    const messages = await herald.waitFor(async () => {
      const list = await herald.console.ok('GET', '/messages');
      return list.items.length > 0 && list;
    });
    const logs = await herald.console.ok('GET', '/logs');
    const log = await herald.console.ok('GET', `/logs/${logs.items[0].id}`);
    this.fixtures = {
      taskId: task.id,
      taskToken,
      templateId: template.id,
      templateToken,
      channelId: channel.id,
      instanceId: (instances.items ?? instances)[0].id,
      messageId: messages.items[0].id,
      sendId: logs.items[0].id,
      deliveryId: log.deliveries[0].id,
    };
  }

  /** Signs in again after a fuzzed logout; the desktop route when sign-ins are throttled. */
  private async signIn(): Promise<void> {
    const client = this.herald.console;
    const login = await client.post('/login', ADMIN);
    if (login.body?.code !== 200) {
      // The desktop window's way in: a one-time secret, answered with a redirect and a cookie.
      const secret = randomBytes(24).toString('hex');
      this.herald.server.ctx.desktopSecret.value = secret;
      const res = await fetch(`${this.url}/api/console/desktop-login?secret=${secret}`, {
        redirect: 'manual',
      });
      await res.arrayBuffer();
      const pair = res.headers.get('set-cookie')?.split(';')[0];
      if (pair) client.cookie = pair;
    }
    if ((await client.get('/me')).status !== 200)
      throw new Error(`fuzz harness: cannot sign in again (${JSON.stringify(login.body)})`);
    this.cookie = client.cookie;
  }

  /**
   * Puts back what fuzzed console calls may have taken away: the session, the fixtures (a
   * deleted task or template), their tokens (rotated) and the settings.
   */
  async repair(): Promise<void> {
    const client = this.herald.console;
    client.cookie = this.cookie;
    if ((await client.get('/me')).status !== 200) await this.signIn();
    const gone = await Promise.all(
      [`/tasks/${this.fixtures.taskId}`, `/templates/${this.fixtures.templateId}`].map(
        async (p) => (await client.get(p)).status === 404,
      ),
    );
    if (gone.some(Boolean)) await this.createFixtures();
    else {
      this.fixtures.taskToken = (
        await client.ok('GET', `/tasks/${this.fixtures.taskId}/token`)
      ).token;
      this.fixtures.templateToken = (
        await client.ok('GET', `/templates/${this.fixtures.templateId}/token`)
      ).token;
    }
    await client.ok('PUT', '/settings', BASELINE_SETTINGS);
  }

  /** The request with live credentials in place of the markers. */
  materialise(target: TargetName, req: FuzzRequest): FuzzRequest {
    const f = this.fixtures;
    const values: Record<string, string> = {
      [MARK.taskToken]: f.taskToken,
      [MARK.taskId]: String(f.taskId),
      [MARK.templateToken]: f.templateToken,
      [MARK.templateId]: String(f.templateId),
      [MARK.channelId]: String(f.channelId),
      [MARK.instanceId]: String(f.instanceId),
      [MARK.messageId]: String(f.messageId),
      [MARK.sendId]: String(f.sendId),
      [MARK.deliveryId]: String(f.deliveryId),
    };
    const swap = (s: string) => s.replace(/\$[A-Z_]+\$/g, (m) => values[m] ?? m);
    let headers = req.headers.map(([k, v]): [string, string] => [k, swap(v)]);
    if (target === 'console') {
      headers = withSessionCookie(headers, this.cookie);
    }
    const body = req.body.includes('$') ? Buffer.from(swap(req.body.toString('utf8'))) : req.body;
    return { method: req.method, path: swap(req.path), headers, body };
  }

  /** Sends one generated request and judges the answer. */
  async send(target: TargetName, req: FuzzRequest): Promise<Outcome> {
    const real = this.materialise(target, req);
    this.captured = [];
    let verdict: Verdict;
    try {
      const res = await rawRequest(this.url, real);
      verdict = judge(real.method, res);
      if (target === 'console' && res.status === 401) await this.signIn();
    } catch (err) {
      if (!(err instanceof RawHttpError)) throw err;
      verdict = { ok: false, status: null, kind: 'no-answer', detail: err.message };
    }
    const serverErrors = this.captured;
    this.captured = [];
    return { verdict, serverErrors };
  }

  /** The server still answers: GET /api/console/status in the envelope. */
  async alive(): Promise<boolean> {
    try {
      const res = await rawRequest(this.url, {
        method: 'GET',
        path: '/api/console/status',
        headers: [],
      });
      return res.status === 200 && isEnvelope(200, res.body);
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    console.error = this.originalError;
    delete process.env.HERALD_LOG_FORMAT;
    if (this.originalLogLevel === undefined) delete process.env.HERALD_LOG;
    else process.env.HERALD_LOG = this.originalLogLevel;
    await this.herald.close(true);
  }
}

/** One kind of failure, how often it happened and the first input that showed it. */
export interface FailureGroup {
  signature: string;
  target: TargetName;
  count: number;
  /** Index of the first failing run in its target's pass (replayable with the seed). */
  runIndex: number;
  example: FuzzRequest;
  outcome: Outcome;
}

export interface FuzzSummary {
  seed: number;
  runs: Record<TargetName, number>;
  statuses: Record<TargetName, Record<string, number>>;
  failures: FailureGroup[];
  alive: boolean;
}

export interface FuzzOptions {
  /** Runs per target. */
  runs: Record<TargetName, number>;
  seed?: number;
  /** Repairs fixtures, session and settings every this many runs. */
  repairEvery?: number;
  onProgress?: (target: TargetName, done: number, total: number) => void;
}

/**
 * Runs every target for its count and records every answer. The property never fails, so one
 * failure does not stop the run: all of them are counted and grouped by signature.
 */
export async function runFuzz(harness: FuzzHarness, opts: FuzzOptions): Promise<FuzzSummary> {
  const seed = opts.seed ?? Date.now() ^ (Math.random() * 0x7fffffff);
  const repairEvery = opts.repairEvery ?? 200;
  const summary: FuzzSummary = {
    seed,
    runs: { v1: 0, v2: 0, console: 0 },
    statuses: { v1: {}, v2: {}, console: {} },
    failures: [],
    alive: false,
  };
  const groups = new Map<string, FailureGroup>();
  for (const target of Object.keys(TARGETS) as TargetName[]) {
    const total = opts.runs[target];
    if (total <= 0) continue;
    let index = 0;
    const property = fc.asyncProperty(TARGETS[target], async (req) => {
      const runIndex = index++;
      if (runIndex > 0 && runIndex % repairEvery === 0) await harness.repair();
      const outcome = await harness.send(target, req);
      summary.runs[target]++;
      const { verdict } = outcome;
      // "400*": answered by Node's HTTP parser before Herald saw the request.
      const status = `${verdict.status ?? 'none'}${verdict.ok && verdict.note === 'http-parser' ? '*' : ''}`;
      const counts = summary.statuses[target];
      counts[status] = (counts[status] ?? 0) + 1;
      const signature = signatureOf(target, outcome);
      if (signature) {
        const group = groups.get(signature);
        if (group) group.count++;
        else
          groups.set(signature, { signature, target, count: 1, runIndex, example: req, outcome });
      }
      opts.onProgress?.(target, runIndex + 1, total);
      return true;
    });
    const details = await fc.check(property, { seed, numRuns: total, endOnFailure: true });
    if (details.failed && details.errorInstance) throw details.errorInstance;
    await harness.repair();
  }
  summary.failures = [...groups.values()].sort((a, b) => b.count - a.count);
  summary.alive = await harness.alive();
  return summary;
}

/**
 * Replays the failing run of a group from its seed and lets fast-check shrink it to a small
 * input that fails the same way.
 */
export async function shrinkFailure(
  harness: FuzzHarness,
  group: FailureGroup,
  seed: number,
): Promise<FuzzRequest> {
  const property = fc.asyncProperty(TARGETS[group.target], async (req) => {
    const outcome = await harness.send(group.target, req);
    return signatureOf(group.target, outcome) !== group.signature;
  });
  const details = await fc.check(property, {
    seed,
    path: String(group.runIndex),
    numRuns: 1,
  });
  return details.counterexample?.[0] ?? group.example;
}

/** The first line the server logged for a failure ("<time> [ERROR] [http] POST /path: cause"). */
export const serverCause = (outcome: Outcome): string | undefined =>
  outcome.serverErrors[0]?.split('\n')[0];

/** Anything outside printable ASCII as a \uXXXX escape, so NULs and lone surrogates show. */
const visible = (s: string): string =>
  s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * A request as a reader wants to see it, long parts cut. $TASK_TOKEN$, $SESSION$ and the other
 * markers stand for the live credentials and ids the harness put in their place.
 */
export function describeRequest(target: TargetName, req: FuzzRequest, max = 300): string {
  const cut = (s: string) => (s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s);
  const headers =
    target === 'console' ? withSessionCookie(req.headers, 'herald_session=$SESSION$') : req.headers;
  return [
    `${req.method} ${cut(visible(req.path))}`,
    ...headers.map(([k, v]) => `${k}: ${cut(visible(v))}`),
    req.body.length > 0
      ? `body (${req.body.length} bytes): ${cut(visible(req.body.toString('utf8')))}`
      : 'no body',
  ].join('\n  ');
}
