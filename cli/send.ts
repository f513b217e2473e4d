/**
 * `herald send`: one message to Herald's send API over HTTP, for scripts and pipes
 * (`make 2>&1 | herald send --title build`). Uses Node's fetch and nothing of the server, so it
 * starts fast; the bundle (scripts/build-server.mjs) loads it only for `send`.
 *
 * Exit codes: 0 accepted, 1 refused by Herald (its msg printed), 2 usage error, 3 Herald
 * unreachable (or something else answered at the address).
 */
import { cliConfigPath, ConfigFileError, readCliConfig } from './cli-config';
import { parseSendArgs, SEND_HELP, type SendOptions } from './send-args';

export const EXIT = { accepted: 0, refused: 1, usage: 2, unreachable: 3 } as const;

/** The envelope every send-API answer is: `{code, msg, data}`. */
interface Envelope {
  code: number;
  msg: string;
  data: unknown;
}

export interface SendIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * How long to wait for an answer. V1 holds its answer until the first attempt of every
 * delivery (15 s by default, configurable); five minutes covers any sensible setting.
 */
const ANSWER_TIMEOUT_MS = 300_000;

class Unreachable extends Error {}

const isEnvelope = (value: unknown): value is Envelope =>
  value !== null &&
  typeof value === 'object' &&
  typeof (value as Envelope).code === 'number' &&
  typeof (value as Envelope).msg === 'string' &&
  'data' in value;

/** POSTs JSON and reads Herald's envelope; Unreachable when no Herald answered. */
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Envelope> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    throw new Unreachable(`cannot reach Herald at ${new URL(url).origin}: ${why}`);
  }
  const text = await res.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isEnvelope(parsed)) {
    throw new Unreachable(
      `no Herald answered at ${new URL(url).origin}: HTTP ${res.status}, not a Herald answer`,
    );
  }
  return parsed;
}

/** All of stdin as text, with its trailing line breaks dropped (as `$(…)` does). */
async function readStdin(stdin: SendIo['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  }
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/(\r?\n)+$/, '');
}

/** One line for a person: what Herald accepted. */
function acceptedLine(api: 'v1' | 'v2', data: unknown): string {
  const d = (data ?? {}) as Record<string, unknown>;
  const link = typeof d.hostMessageUrl === 'string' ? `\n${d.hostMessageUrl}` : '';
  // A digest collected it, or some instances' deliveries (issue 46 §2): when that goes out.
  const until = (d.digest as { until?: unknown } | undefined)?.until;
  const digest = typeof until === 'string' ? `in a digest that goes out at ${until}` : null;
  if (api === 'v2') {
    const count = typeof d.count === 'number' ? d.count : 0;
    if (digest && count === 0) return `accepted: collected ${digest}${link}`;
    const queued = `queued to ${count} instance${count === 1 ? '' : 's'}`;
    return `accepted: ${queued}${digest ? `; the others ${digest}` : ''}${link}`;
  }
  const sendId = typeof d.sendId === 'number' ? ` (send ${d.sendId})` : '';
  const more = digest ? (d.status === 'collected' ? ` ${digest}` : `; the others ${digest}`) : '';
  return `accepted: ${String(d.status ?? 'sent')}${sendId}${more}${link}`;
}

/** The sentences of an accepted send's `data.warnings`, when it has any. */
function warningsOf(data: unknown): string[] {
  const warnings = (data as { warnings?: unknown } | null)?.warnings;
  return Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === 'string') : [];
}

/** Runs `herald send ARGS`; resolves to the exit code. */
export async function runSend(argv: readonly string[], io: SendIo): Promise<number> {
  const fail = (code: number, message: string) => {
    io.stderr.write(`herald send: ${message}\n`);
    if (code === EXIT.usage) io.stderr.write('Run `herald send --help` for usage.\n');
    return code;
  };
  let file;
  try {
    file = readCliConfig(cliConfigPath(io.env));
  } catch (err) {
    if (err instanceof ConfigFileError) return fail(EXIT.usage, err.message);
    throw err;
  }
  const parsed = parseSendArgs(argv, io.env, file);
  if (parsed.kind === 'help') {
    io.stdout.write(SEND_HELP);
    return EXIT.accepted;
  }
  if (parsed.kind === 'usage-error') return fail(EXIT.usage, parsed.message);
  const options = parsed.options;

  const answer = (envelope: Envelope, api: 'v1' | 'v2' | undefined): number => {
    const accepted = envelope.code === 200;
    if (options.json) io.stdout.write(`${JSON.stringify(envelope)}\n`);
    else if (accepted && api) {
      io.stdout.write(`${acceptedLine(api, envelope.data)}\n`);
      // Accepted and delivered as sent, but with a marker left unfilled, a key the template
      // does not declare, or the text not where it was meant to go: the person at the terminal
      // should see it (docs/send-api.md).
      for (const warning of warningsOf(envelope.data)) {
        io.stderr.write(`herald send: warning: ${warning}\n`);
      }
    }
    if (accepted) return EXIT.accepted;
    if (!options.json) io.stderr.write(`herald send: ${envelope.msg}\n`);
    return EXIT.refused;
  };

  try {
    const kind = await post(`${options.url}/api/public/token-kind`, { token: options.token });
    if (kind.code !== 200) return answer(kind, undefined);
    const api = (kind.data as { kind?: unknown } | null)?.kind === 'task' ? 'v1' : 'v2';

    const text = options.text ?? (io.stdin.isTTY ? undefined : await readStdin(io.stdin));
    const body = requestBody(api, options, text === '' ? undefined : text);
    if (typeof body === 'string') return fail(EXIT.usage, body);
    const headers: Record<string, string> =
      options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey };
    return answer(await post(`${options.url}/api/${api}/message/send`, body, headers), api);
  } catch (err) {
    if (err instanceof Unreachable) return fail(EXIT.unreachable, err.message);
    throw err;
  }
}

/** The send API's body, or a usage error's message. */
function requestBody(
  api: 'v1' | 'v2',
  options: SendOptions,
  text: string | undefined,
): Record<string, unknown> | string {
  if (api === 'v1') {
    if (Object.keys(options.placeholders).length > 0) {
      return '-p fills a template’s placeholders; this is a task token (V1), which takes --text';
    }
    if (text === undefined) {
      return 'a task token (V1) sends a text: pass --text TEXT or pipe the text in';
    }
    return { token: options.token, title: options.title, text, ...extras(options) };
  }
  // The text goes as V2's `text`, which Herald puts where the template wants it: its {{text}},
  // or, for a template without one, the content (docs/send-api.md). `-p text=…` wins.
  const { placeholders } = options;
  const sendText = text !== undefined && !Object.hasOwn(placeholders, 'text');
  return {
    token: options.token,
    title: options.title,
    ...(Object.keys(placeholders).length > 0 ? { placeholders } : {}),
    ...(sendText ? { text } : {}),
    ...extras(options),
  };
}

/** The fields both send APIs take beside their own; left out when not given, so Herald's defaults apply. */
function extras(options: SendOptions): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (options.priority !== undefined) fields.priority = options.priority;
  if (options.dedupKey !== undefined) fields.dedupKey = options.dedupKey;
  if (options.dedupWindow !== undefined) fields.dedupWindow = options.dedupWindow;
  if (options.digestKey !== undefined) fields.digestKey = options.digestKey;
  return fields;
}
