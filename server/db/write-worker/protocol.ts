/**
 * The messages between the main thread and the SQLite write worker (write-worker.ts), and how
 * an error crosses between them. Structured cloning keeps an Error's message and name but
 * drops the fields Herald reads (`code` for SQLite and database-unavailable answers, the
 * envelope code of an AppError), so errors travel as plain data and are rebuilt.
 */
import { AppError, type ErrorCode } from '../../lib/errors';

/** One kind's items of a cycle, with the moment its program runs at (plain data). */
export interface RemoteGroup {
  program: string;
  moment: unknown;
  items: unknown[];
}

export interface WireError {
  name: string;
  message: string;
  code?: string | number;
  data?: unknown;
  stack?: string;
}

export type WireSettled = { ok: true; value: unknown } | { ok: false; error: WireError };

/**
 * A cycle's groups and its results cross as JSON text: copying one string is cheaper for the
 * main thread than the structured clone of a few hundred small objects (issue 8's profile:
 * postMessage was the worker's largest cost on the main thread), and the items are JSON-safe
 * already (they become JSON parameters of the hot path's statements).
 */
export type ToWorker = { type: 'cycle'; id: number; groups: string } | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'open-failed'; error: WireError }
  | { type: 'done'; id: number; results: string }
  | { type: 'closed' };

/** What the worker was given when it started (workerData). */
export interface WorkerStart {
  dbFile: string;
  busyTimeoutMs: number;
}

export function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const { code } = err as { code?: unknown };
  return {
    name: err.name,
    message: err.message,
    ...((typeof code === 'string' || typeof code === 'number') && { code }),
    ...(err instanceof AppError && { data: err.data }),
    ...(err.stack !== undefined && { stack: err.stack }),
  };
}

export function fromWire(wire: WireError): Error {
  if (wire.name === 'AppError' && typeof wire.code === 'number') {
    const err = new AppError(wire.code as ErrorCode, wire.message, wire.data ?? null);
    if (wire.stack) err.stack = wire.stack;
    return err;
  }
  const err = new Error(wire.message) as Error & { code?: string | number };
  err.name = wire.name;
  if (wire.code !== undefined) err.code = wire.code;
  if (wire.stack) err.stack = wire.stack;
  return err;
}
