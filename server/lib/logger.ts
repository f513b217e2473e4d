import { inspect } from 'node:util';

/** Module-tagged logger; quiet under tests unless HERALD_LOG is set. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function threshold(): number {
  const env = process.env.HERALD_LOG as LogLevel | undefined;
  if (env && env in order) return order[env];
  return process.env.VITEST ? order.error + 1 : order.info;
}

export interface Logger {
  debug(msg: string, extra?: unknown): void;
  info(msg: string, extra?: unknown): void;
  warn(msg: string, extra?: unknown): void;
  error(msg: string, extra?: unknown): void;
}

/**
 * Somewhere else every log line goes, besides the console: the desktop app's log file, since a
 * packaged app started from a menu has no terminal to print to. Sinks get the finished line and
 * must not throw.
 */
export type LogSink = (line: string, level: LogLevel) => void;

const sinks = new Set<LogSink>();

/** addLogSink() sends every line at or above the threshold to `sink` too; returns a remover. */
export function addLogSink(sink: LogSink): () => void {
  sinks.add(sink);
  return () => sinks.delete(sink);
}

/** describeExtra() renders a log call's extra value: an error's stack, anything else inspected. */
export function describeExtra(extra: unknown): string {
  if (extra instanceof Error) return extra.stack ?? `${extra.name}: ${extra.message}`;
  return typeof extra === 'string' ? extra : inspect(extra, { depth: 4, breakLength: Infinity });
}

export function createLogger(module: string): Logger {
  const log = (level: LogLevel, msg: string, extra?: unknown): void => {
    if (order[level] < threshold()) return;
    const line = `${new Date().toISOString()} [${level.toUpperCase()}] [${module}] ${msg}`;
    const stream = level === 'error' || level === 'warn' ? console.error : console.log;
    if (extra === undefined) stream(line);
    else stream(line, extra);
    if (sinks.size === 0) return;
    const full = extra === undefined ? line : `${line} ${describeExtra(extra)}`;
    for (const sink of sinks) sink(full, level);
  };
  return {
    debug: (m, e) => log('debug', m, e),
    info: (m, e) => log('info', m, e),
    warn: (m, e) => log('warn', m, e),
    error: (m, e) => log('error', m, e),
  };
}
