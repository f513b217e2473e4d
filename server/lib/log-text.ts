import { inspect } from 'node:util';

/**
 * The readable form of a log line, for a terminal and the desktop app's log file:
 * `<time> [LEVEL] [module] message key=value… <extra>`. It is rendered from the record pino
 * wrote (its JSON, parsed), so text and JSON lines always carry the same facts.
 */

/** Keys a text line shows in its own place, or not at all (pino's process and host). */
const PLACED = new Set(['level', 'time', 'module', 'msg', 'err', 'extra', 'pid', 'hostname']);

interface SerializedError {
  type?: string;
  message?: string;
  stack?: string;
}

/** describeExtra() renders a log call's extra value: an error's stack, anything else inspected. */
export function describeExtra(extra: unknown): string {
  if (extra instanceof Error) return extra.stack ?? `${extra.name}: ${extra.message}`;
  return typeof extra === 'string' ? extra : inspect(extra, { depth: 4, breakLength: Infinity });
}

function describeError(err: SerializedError): string {
  return err.stack ?? `${err.type ?? 'Error'}: ${err.message ?? ''}`;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/** formatTextLine() turns one parsed pino record into the text line (no newline). */
export function formatTextLine(record: Record<string, unknown>): string {
  const level = typeof record.level === 'string' ? record.level.toUpperCase() : 'INFO';
  let line = `${String(record.time)} [${level}] [${String(record.module ?? '-')}] ${String(record.msg ?? '')}`;
  for (const key of Object.keys(record)) {
    if (!PLACED.has(key)) line += ` ${key}=${describeValue(record[key])}`;
  }
  if (record.err !== undefined) line += ` ${describeError(record.err as SerializedError)}`;
  if (record.extra !== undefined) line += ` ${describeExtra(record.extra)}`;
  return line;
}
