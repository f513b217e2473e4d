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

export function createLogger(module: string): Logger {
  const log = (level: LogLevel, msg: string, extra?: unknown): void => {
    if (order[level] < threshold()) return;
    const line = `${new Date().toISOString()} [${level.toUpperCase()}] [${module}] ${msg}`;
    const stream = level === 'error' || level === 'warn' ? console.error : console.log;
    if (extra === undefined) stream(line);
    else stream(line, extra);
  };
  return {
    debug: (m, e) => log('debug', m, e),
    info: (m, e) => log('info', m, e),
    warn: (m, e) => log('warn', m, e),
    error: (m, e) => log('error', m, e),
  };
}
