import { closeSync, openSync } from 'node:fs';
import path from 'node:path';

import pino from 'pino';

import { errorMessage } from './errors';
import { formatTextLine } from './log-text';
import { openRotatingLogFile, type LogFile } from './rotating-log-file';

export { describeExtra, formatTextLine } from './log-text';

/**
 * Herald's logger, on pino. Every line is pino's JSON record; HERALD_LOG_FORMAT says whether
 * it is printed as such (`json`, for log shippers: the default when stdout is not a terminal)
 * or as one readable line (`text`, the default on a terminal). Quiet under tests unless
 * HERALD_LOG is set.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'json' | 'text';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

// Read on every call, as before pino: tests and the desktop app change HERALD_LOG at run time.
function threshold(): number {
  const env = process.env.HERALD_LOG as LogLevel | undefined;
  if (env && env in order) return order[env];
  return process.env.VITEST ? order.error + 1 : order.info;
}

/** logEnabled() is true when a line at `level` would be written: check it before building one. */
export function logEnabled(level: LogLevel): boolean {
  return order[level] >= threshold();
}

/** logFormat() is HERALD_LOG_FORMAT when it names one, else text on a terminal and JSON elsewhere. */
export function logFormat(
  env: NodeJS.ProcessEnv = process.env,
  isTTY: boolean = process.stdout.isTTY === true,
): LogFormat {
  const set = env.HERALD_LOG_FORMAT?.trim().toLowerCase();
  if (set === 'json' || set === 'text') return set;
  return isTTY ? 'text' : 'json';
}

export interface Logger {
  debug(msg: string, extra?: unknown): void;
  info(msg: string, extra?: unknown): void;
  warn(msg: string, extra?: unknown): void;
  error(msg: string, extra?: unknown): void;
}

/**
 * Somewhere else every log line goes, besides the console: the desktop app's log file, since a
 * packaged app started from a menu has no terminal to print to, and headless Herald's
 * HERALD_LOG_FILE. Sinks get one finished line (no newline) and must not throw.
 */
export type LogSink = (line: string, level: LogLevel) => void;

/**
 * Which line a sink gets: `text`, the readable line whatever HERALD_LOG_FORMAT is (the desktop's
 * file); `printed`, the line exactly as printed on stdout or stderr, in HERALD_LOG_FORMAT's form,
 * what the start announces included (HERALD_LOG_FILE: a copy of what a service manager reads).
 */
export type LogSinkLines = 'text' | 'printed';

const sinks: Record<LogSinkLines, Set<LogSink>> = { text: new Set(), printed: new Set() };

/** addLogSink() sends every line at or above the threshold to `sink` too; returns a remover. */
export function addLogSink(sink: LogSink, lines: LogSinkLines = 'text'): () => void {
  sinks[lines].add(sink);
  return () => sinks[lines].delete(sink);
}

/** Where the lines are printed: one finished line (no newline) in the chosen format. */
export interface LogOutput {
  write(line: string, level: LogLevel): void;
}

// Through console rather than the streams: tests that silence or capture console.error keep
// doing so. Warnings and errors go to stderr, as they always have.
const consoleOutput: LogOutput = {
  write: (line, level) => {
    if (level === 'warn' || level === 'error') console.error(line);
    else console.log(line);
  },
};

let output: LogOutput = consoleOutput;
let fixedFormat: LogFormat | undefined;

/**
 * setLogOutput() prints the lines to `out` instead of the console, in `format` (else as
 * HERALD_LOG_FORMAT says); returns a restorer. For tests, and for anyone embedding Herald.
 */
export function setLogOutput(out: LogOutput, format?: LogFormat): () => void {
  const before = { output, fixedFormat };
  output = out;
  fixedFormat = format;
  return () => {
    output = before.output;
    fixedFormat = before.fixedFormat;
  };
}

// pino writes synchronously to a plain object with write(), so the level of the line being
// written is the one the last call set here.
let writing: LogLevel = 'info';

function route(json: string): void {
  const line = json.endsWith('\n') ? json.slice(0, -1) : json;
  const format = fixedFormat ?? logFormat();
  const text =
    format === 'text' || sinks.text.size > 0
      ? formatTextLine(JSON.parse(line) as Record<string, unknown>)
      : '';
  print(format === 'json' ? line : text, text, writing);
}

/** Prints `printed` and hands it, or the readable `text`, to each sink. */
function print(printed: string, text: string, level: LogLevel): void {
  output.write(printed, level);
  for (const sink of sinks.printed) sink(printed, level);
  for (const sink of sinks.text) sink(text, level);
}

/**
 * A finished JSON line another thread of this process logged (the delivery thread sends its
 * lines here): printed in this thread's format and to its sinks, as if logged here.
 */
export function writeLogLine(json: string, level: LogLevel): void {
  writing = level;
  route(json);
}

// The threshold is Herald's (above); pino's own level lets everything through to it.
const root = pino(
  {
    level: 'debug',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  },
  { write: route },
);

/**
 * logEvent() writes one line with named fields (JSON keys; `key=value` in text). Callers on a
 * hot path check logEnabled() first, so nothing is built for a line that is not written.
 */
export function createEventLogger(
  module: string,
): (level: LogLevel, msg: string, fields: Record<string, unknown>) => void {
  const child = root.child({ module });
  return (level, msg, fields) => {
    if (!logEnabled(level)) return;
    writing = level;
    child[level](fields, msg);
  };
}

/**
 * announce() writes what a process says to whoever started it (the address it listens on, the
 * setup code, why it stops) whatever the threshold: as a record like every other line in JSON,
 * so a log shipper or `jq` can read the whole output, and as `text` itself (which may span
 * lines) in the text format.
 */
export function announce(
  module: string,
  level: 'info' | 'error',
  msg: string,
  fields: Record<string, unknown> = {},
  text: string = msg,
): void {
  if ((fixedFormat ?? logFormat()) === 'text') {
    print(text, text, level);
    return;
  }
  writing = level;
  root.child({ module })[level](fields, msg);
}

export function createLogger(module: string): Logger {
  const child = root.child({ module });
  const log = (level: LogLevel, msg: string, extra?: unknown): void => {
    if (!logEnabled(level)) return;
    writing = level;
    if (extra === undefined) child[level](msg);
    // An error keeps pino's serializer (type, message, stack); anything else is `extra`.
    else if (extra instanceof Error) child[level]({ err: extra }, msg);
    else child[level]({ extra }, msg);
  };
  return {
    debug: (m, e) => log('debug', m, e),
    info: (m, e) => log('info', m, e),
    warn: (m, e) => log('warn', m, e),
    error: (m, e) => log('error', m, e),
  };
}

/**
 * logToFileFromEnv() copies every printed line to HERALD_LOG_FILE, when it is set: a size-capped
 * file rotated like the desktop app's (5 MiB, then `<name>.1<ext>` up to `.3`), for a headless
 * Herald whose stdout nobody keeps. The lines are the printed ones, so the file and the journal
 * (or `docker logs`) read alike. Throws, naming the variable, when the file cannot be created or
 * written, so a start with a log file nobody can read fails instead of logging nowhere.
 */
export function logToFileFromEnv(env: NodeJS.ProcessEnv = process.env): LogFile | undefined {
  const setting = env.HERALD_LOG_FILE?.trim();
  if (!setting) return undefined;
  const file = path.resolve(setting);
  let logFile: LogFile;
  try {
    logFile = openRotatingLogFile(file);
    closeSync(openSync(file, 'a', 0o600));
  } catch (err) {
    throw new Error(`HERALD_LOG_FILE (${file}) cannot be written: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  addLogSink((line) => logFile.write(line), 'printed');
  return logFile;
}
