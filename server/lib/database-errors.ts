/**
 * Errors that mean the database cannot be used right now, rather than that the request was
 * wrong or Herald has a bug: a lost or refused PostgreSQL connection, a PostgreSQL that is
 * shutting down or starting, an SQLite file that stays locked by another program, cannot be
 * written or is full. (A write refused as read-only is a bug in Herald, not one of these.)
 * The request is answered 503 (its transaction was rolled back: nothing of it is stored) and a
 * client retries; Herald itself reconnects on the next request.
 */

/**
 * SQLSTATE classes and codes: 08 connection exception; 57P0x the server is going or coming;
 * 53300 too many connections; 3D000 the database is gone; 28xxx the login is refused.
 */
const PG_UNAVAILABLE = /^(08...|57P0[1-3]|53300|3D000|28000|28P01)$/;
const NODE_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
]);
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|FULL|IOERR|CANTOPEN)/;
const SEQUELIZE_UNAVAILABLE = new Set([
  'SequelizeConnectionError',
  'SequelizeConnectionRefusedError',
  'SequelizeConnectionTimedOutError',
  'SequelizeConnectionAcquireTimeoutError',
  'SequelizeHostNotFoundError',
  'SequelizeHostNotReachableError',
  'SequelizeAccessDeniedError',
]);
/** pg's own words for a connection that ended under a query (no code is set for these). */
const PG_MESSAGES =
  /Connection terminated|Client has encountered a connection error|connection is closed|timeout exceeded when trying to connect|is not currently accepting connections/i;

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 3) return false;
  const e = err as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    parent?: unknown;
    original?: unknown;
    cause?: unknown;
  };
  if (typeof e.name === 'string' && SEQUELIZE_UNAVAILABLE.has(e.name)) return true;
  if (typeof e.code === 'string') {
    if (PG_UNAVAILABLE.test(e.code) || NODE_UNAVAILABLE.has(e.code)) return true;
    if (SQLITE_UNAVAILABLE.test(e.code)) return true;
  }
  if (typeof e.message === 'string') {
    if (PG_MESSAGES.test(e.message)) return true;
    // node-sqlite3 puts the code only in the message.
    if (SQLITE_UNAVAILABLE.test(e.message)) return true;
  }
  // Sequelize wraps the driver's error (parent/original); a failed write cycle may carry a cause.
  return [e.parent, e.original, e.cause].some((inner) => isDatabaseUnavailable(inner, depth + 1));
}
