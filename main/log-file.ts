import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The desktop app's log file, `<userData>/logs/herald.log`. A packaged app started from a menu
 * has no terminal, so this file is the only place its setup code notice, warnings, worker
 * failures and shutdown timeouts can be read afterwards. It is capped: past `maxBytes` the file
 * becomes herald.1.log (the older ones move up, the oldest is dropped), so years of running
 * never fill the disk.
 */

/** The log file's name inside the logs folder. */
export const LOG_FILE_NAME = 'herald.log';

export interface LogFileOptions {
  /** Size at which the file is rotated; 5 MiB by default. */
  maxBytes?: number;
  /** Rotated files kept beside the current one; 3 by default. */
  keep?: number;
}

export interface LogFile {
  readonly file: string;
  /** Appends one line (a newline is added). Never throws: a full disk must not stop Herald. */
  write(line: string): void;
}

/** rotatedName() is `herald.<n>.log` for the n-th older file. */
export function rotatedName(file: string, n: number): string {
  const ext = path.extname(file);
  return `${file.slice(0, file.length - ext.length)}.${n}${ext}`;
}

/** openLogFile() opens (creating the folder) the capped log file in `logsDir`. */
export function openLogFile(logsDir: string, options: LogFileOptions = {}): LogFile {
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const keep = options.keep ?? 3;
  const file = path.join(logsDir, LOG_FILE_NAME);
  mkdirSync(logsDir, { recursive: true });
  let size = Math.max(sizeOf(file), 0);
  let failed = false;

  const rotate = (): void => {
    size = 0;
    // Deleted meanwhile (someone clearing the log): nothing to move, and the line must not be lost.
    if (sizeOf(file) < 0) return;
    rmSync(rotatedName(file, keep), { force: true });
    for (let n = keep - 1; n >= 1; n--) {
      const from = rotatedName(file, n);
      if (sizeOf(from) >= 0) renameSync(from, rotatedName(file, n + 1));
    }
    renameSync(file, rotatedName(file, 1));
  };

  return {
    file,
    write(line) {
      const text = `${line}\n`;
      const bytes = Buffer.byteLength(text);
      try {
        if (size > 0 && size + bytes > maxBytes) rotate();
        appendFileSync(file, text, { mode: 0o600 });
        size += bytes;
        failed = false;
      } catch (err) {
        // Said once on the console per failing stretch, not on every line.
        if (!failed) console.error(`Herald could not write its log file ${file}:`, err);
        failed = true;
        size = Math.max(sizeOf(file), 0);
      }
    },
  };
}

/** Size of `file` in bytes, or -1 when it does not exist. */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
}
