/**
 * `herald send`'s command line, read into what to send. Pure: flags, environment and the
 * config file's values come in, a request description or a usage error comes out; the
 * network, stdin and exit codes are cli/send.ts's. No Herald server code and no zod, so
 * `herald send` starts in the time Node takes to start.
 */
import { parseArgs } from 'node:util';

import { LIMITS } from '../contract/limits';
import { parsePriority, PRIORITY_NAMES, type Priority } from '../contract/priority';
import { tokenFromEnv } from './token-variable';

/** Herald's own default address (server/config/herald-config.ts: DEFAULT_HOST, DEFAULT_PORT). */
export const DEFAULT_URL = 'http://127.0.0.1:8765';

/** Values from ~/.config/herald/cli.json (cli/cli-config.ts). */
export interface FileConfig {
  url?: string;
  token?: string;
}

/** What one `herald send` sends. */
export interface SendOptions {
  /** Herald's base address, without a trailing slash. */
  url: string;
  token: string;
  title: string;
  /** `--text TEXT`; undefined when the text comes from stdin (no --text, or `--text -`). */
  text: string | undefined;
  /** `-p key=value`, in order; a later key wins. */
  placeholders: Record<string, string>;
  idempotencyKey: string | undefined;
  /** `--priority`, as its number; undefined leaves each channel its own default. */
  priority: Priority | undefined;
  dedupKey: string | undefined;
  /** `--dedup-window` in seconds; undefined is Herald's default (300). */
  dedupWindow: number | undefined;
  /** `--digest-key`: the digest a collecting task or template puts the send in. */
  digestKey: string | undefined;
  json: boolean;
}

export type ParsedSend =
  | { kind: 'send'; options: SendOptions }
  | { kind: 'help' }
  | { kind: 'usage-error'; message: string };

/** "min, low, default, high, max, urgent", from the table the send APIs parse with. */
const PRIORITY_NAME_LIST = Object.keys(PRIORITY_NAMES).join(', ');

export const SEND_HELP = `Usage: herald send [--url URL] [--token T] --title TITLE [--text TEXT | stdin]
                   [-p key=value ...] [--priority 1-5] [--dedup-key K [--dedup-window S]]
                   [--digest-key K] [--idempotency-key K] [--json]

Sends one message through Herald's send API. A template token goes to V2
(/api/v2/message/send), a task token to V1 (/api/v1/message/send): Herald tells
which it is (POST /api/public/token-kind).

Options:
  --url URL              Herald's address (HERALD_URL, the config file's "url",
                         default ${DEFAULT_URL})
  --token T              a template or task token (HERALD_TOKEN, or a file named
                         by HERALD_TOKEN_FILE; the config file's "token")
  --title TITLE          the message's title (required)
  --text TEXT            the text; absent or "-", it is read from stdin when stdin
                         is a pipe or a file. With a template token the text fills
                         the {{text}} placeholder (unless -p text=... is given); a
                         template without one sends the text as its content, or,
                         when -p values are given, leaves it out with a warning
  -p, --placeholder key=value
                         a template placeholder's value (repeatable; template
                         tokens only)
  --priority P           1 (min) to 5 (max), or ${PRIORITY_NAME_LIST};
                         left out, each channel uses its own default (3)
  --dedup-key K          sends with the same key on the same task or template
                         within the dedup window are accepted but not delivered
                         again (1 to ${LIMITS.dedupKeyChars} characters)
  --dedup-window S       the dedup window in seconds (default ${LIMITS.dedupWindowDefaultSeconds}, at most
                         ${LIMITS.dedupWindowMaxSeconds}, a day); needs --dedup-key
  --digest-key K         where the task or template collects its sends into
                         digests: the digest this send joins (1 to ${LIMITS.dedupKeyChars}
                         characters; default: the task's or template's own)
  --idempotency-key K    sent as the Idempotency-Key header: a repeat within 24
                         hours gets the first answer and sends nothing again
  --json                 print Herald's answer ({code, msg, data}) as JSON
  -h, --help             this help

Config file: $XDG_CONFIG_HOME/herald/cli.json (default ~/.config/herald/cli.json),
e.g. {"url": "http://127.0.0.1:8765", "token": "..."}; flags win over
HERALD_URL/HERALD_TOKEN (or HERALD_TOKEN_FILE), which win over the file.

Exit codes: 0 accepted, 1 refused by Herald (its msg is printed), 2 usage error,
3 Herald unreachable.

Examples:
  herald send --token "$TOKEN" --title "Disk alert" -p host=web-3 -p pct=98
  make 2>&1 | herald send --title build
  herald send --title "Backup done" --text "nightly backup finished"
  herald send --title "Disk full" --text "/var at 98%" --priority high \\
              --dedup-key disk-web-3 --dedup-window 3600
  herald send --title deploy --text ok --idempotency-key "deploy-$GIT_SHA" --json
`;

const usage = (message: string): ParsedSend => ({ kind: 'usage-error', message });

/** A base URL Herald can be reached at: http(s), no query or fragment; trailing slashes dropped. */
function baseUrl(value: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  if (parsed.search || parsed.hash || parsed.username || parsed.password) return undefined;
  return parsed.href.replace(/\/+$/, '');
}

const nonEmpty = (value: string | undefined) =>
  value === undefined || value === '' ? undefined : value;

const SEND_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  title: { type: 'string' },
  text: { type: 'string' },
  placeholder: { type: 'string', short: 'p', multiple: true },
  priority: { type: 'string' },
  'dedup-key': { type: 'string' },
  'dedup-window': { type: 'string' },
  'digest-key': { type: 'string' },
  'idempotency-key': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Every flag the command knows, as typed: `--token`, `-p`, … */
const FLAGS = new Set(
  Object.entries(SEND_OPTIONS).flatMap(([name, option]) => [
    `--${name}`,
    ...('short' in option ? [`-${option.short}`] : []),
  ]),
);

/**
 * `--token -Xy…` as `--token=-Xy…`: Node's parseArgs refuses a separate value that starts with
 * a dash, but tokens and idempotency keys may (base64url), as may a title such as "-5 °C". A
 * following word that is itself a flag stays one, so `--title --json` is still a usage error.
 */
function joinDashedValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = argv[i + 1];
    const name = arg === '-p' ? '--placeholder' : arg;
    const takesValue =
      FLAGS.has(arg) && SEND_OPTIONS[name.slice(2) as keyof typeof SEND_OPTIONS]?.type === 'string';
    if (takesValue && next !== undefined && next.startsWith('-') && !FLAGS.has(next)) {
      out.push(`${name}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * Flags > environment (HERALD_URL, HERALD_TOKEN or HERALD_TOKEN_FILE) > config file > default.
 * `readFile` reads HERALD_TOKEN_FILE's file (tests give their own).
 */
export function parseSendArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  file: FileConfig = {},
  readFile?: (path: string) => string,
): ParsedSend {
  let values;
  try {
    ({ values } = parseArgs({
      args: joinDashedValues(argv),
      options: SEND_OPTIONS,
      allowPositionals: false,
      strict: true,
    }));
  } catch (err) {
    return usage(err instanceof Error ? err.message : String(err));
  }
  if (values.help) return { kind: 'help' };

  const urlText = nonEmpty(values.url) ?? nonEmpty(env.HERALD_URL) ?? file.url ?? DEFAULT_URL;
  const url = baseUrl(urlText);
  if (url === undefined) {
    return usage(`--url: "${urlText}" is not an http:// or https:// address of Herald`);
  }
  let token = nonEmpty(values.token);
  if (token === undefined) {
    const fromEnv = tokenFromEnv(env, readFile);
    if ('error' in fromEnv) return usage(fromEnv.error);
    token = nonEmpty(fromEnv.token) ?? nonEmpty(file.token);
  }
  if (token === undefined) {
    return usage(
      '--token is required (or HERALD_TOKEN, HERALD_TOKEN_FILE, or "token" in the config file)',
    );
  }
  if (values.title === undefined || values.title.trim() === '') {
    return usage('--title is required and must not be empty');
  }

  const placeholders: Record<string, string> = {};
  for (const pair of values.placeholder ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) return usage(`-p: "${pair}" is not key=value`);
    placeholders[pair.slice(0, eq)] = pair.slice(eq + 1);
  }

  let priority: Priority | undefined;
  if (values.priority !== undefined) {
    priority = parsePriority(values.priority);
    if (priority === undefined) {
      return usage(`--priority: "${values.priority}" is not 1-5 or ${PRIORITY_NAME_LIST}`);
    }
  }
  const dedupKey = values['dedup-key'];
  // Trimmed as the send APIs trim it, so the length is the one Herald checks.
  if (dedupKey !== undefined) {
    const chars = dedupKey.trim().length;
    if (chars === 0 || chars > LIMITS.dedupKeyChars) {
      return usage(`--dedup-key: must be 1 to ${LIMITS.dedupKeyChars} characters`);
    }
  }
  let dedupWindow: number | undefined;
  const windowText = values['dedup-window'];
  if (windowText !== undefined) {
    // Without a key there is nothing to deduplicate on: the flag was meant to go with one.
    if (dedupKey === undefined) return usage('--dedup-window: give it with --dedup-key');
    dedupWindow = /^\d+$/.test(windowText.trim()) ? Number(windowText.trim()) : NaN;
    if (!(dedupWindow >= 1 && dedupWindow <= LIMITS.dedupWindowMaxSeconds)) {
      return usage(
        `--dedup-window: "${windowText}" is not a whole number of seconds from 1 to ${LIMITS.dedupWindowMaxSeconds} (a day)`,
      );
    }
  }

  const digestKey = values['digest-key'];
  if (digestKey !== undefined) {
    const chars = digestKey.trim().length;
    if (chars === 0 || chars > LIMITS.dedupKeyChars) {
      return usage(`--digest-key: must be 1 to ${LIMITS.dedupKeyChars} characters`);
    }
  }

  const idempotencyKey = values['idempotency-key'];
  if (
    idempotencyKey !== undefined &&
    (idempotencyKey.trim() === '' ||
      idempotencyKey.length > LIMITS.idempotencyKeyChars ||
      !/^[\x20-\x7e]+$/.test(idempotencyKey))
  ) {
    return usage(
      `--idempotency-key: must be 1 to ${LIMITS.idempotencyKeyChars} printable ASCII characters (an HTTP header)`,
    );
  }

  return {
    kind: 'send',
    options: {
      url,
      token,
      title: values.title,
      text: values.text === '-' ? undefined : values.text,
      placeholders,
      idempotencyKey,
      priority,
      dedupKey,
      dedupWindow,
      digestKey,
      json: values.json ?? false,
    },
  };
}
