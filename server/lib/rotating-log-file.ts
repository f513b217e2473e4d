import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * A size-capped log file, rotated by renaming: past `maxBytes` the file becomes `<name>.1<ext>`
 * (the older ones move up, the oldest is dropped), so years of running never fill the disk.
 * The desktop app's `logs/herald.log` (main/log-file.ts) and headless Herald's HERALD_LOG_FILE
 * (lib/log-file-sink.ts) are both this file, so they rotate alike.
 */

/** Size at which the file is rotated: 5 MiB. */
export const DEFAULT_LOG_FILE_MAX_BYTES = 5 * 1024 * 1024;
/** Rotated files kept beside the current one. */
export const DEFAULT_LOG_FILE_KEEP = 3;

export interface LogFileOptions {
  /** Size at which the file is rotated; DEFAULT_LOG_FILE_MAX_BYTES by default. */
  maxBytes?: number;
  /** Rotated files kept beside the current one; DEFAULT_LOG_FILE_KEEP by default. */
  keep?: number;
}

export interface LogFile {
  readonly file: string;
  /** Appends one line (a newline is added). Never throws: a full disk must not stop Herald. */
  write(line: string): void;
}

/** rotatedName() is `herald.<n>.log` for the n-th older file of `herald.log`. */
export function rotatedName(file: string, n: number): string {
  const ext = path.extname(file);
  return `${file.slice(0, file.length - ext.length)}.${n}${ext}`;
}

/**
 * openRotatingLogFile() opens the capped log file `file`, creating its folder. Throws only when
 * the folder cannot be created; a line that cannot be written later is reported, never thrown.
 */
export function openRotatingLogFile(file: string, options: LogFileOptions = {}): LogFile {
  const maxBytes = options.maxBytes ?? DEFAULT_LOG_FILE_MAX_BYTES;
  const keep = options.keep ?? DEFAULT_LOG_FILE_KEEP;
  mkdirSync(path.dirname(file), { recursive: true });
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
        // Said once on the console per failing stretch, not on every line; straight to stderr,
        // not through the logger, which would hand the line back to this file.
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
