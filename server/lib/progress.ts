/**
 * Progress of a long job that goes through tables row by row (the move to PostgreSQL, the
 * Message Nest import): `sends: 12 000 / 48 210 rows (24 %)`. A line at most every interval
 * per table, so a million rows print a few dozen lines, not a million; each table's last line
 * is always printed, and the job's closing line sums them up.
 */

export interface TableProgress {
  /** `done` rows of the table so far; prints only when the interval has passed. */
  advance(done: number): void;
  /** The table's last line, always printed (`done` defaults to the last advance). */
  finish(done?: number): void;
}

export interface RowProgress {
  table(name: string, total: number): TableProgress;
  /** The closing line: every table's rows together. */
  done(): void;
}

export interface RowProgressOptions {
  /** Where each line goes (without its line break). */
  write(line: string): void;
  /** Milliseconds; injectable so tests need not wait. */
  now?: () => number;
  intervalMs?: number;
}

/** 48210 → "48 210": a space groups digits the same way in every locale. */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

/**
 * Rounded down, so 100 % means every row; a table without rows is complete. Above the total
 * (rows written while the job ran) it stays at 100.
 */
export function percentOf(done: number, total: number): number {
  if (total <= 0) return 100;
  return Math.min(100, Math.floor((done * 100) / total));
}

export function progressLine(name: string, done: number, total: number): string {
  return `${name}: ${groupDigits(done)} / ${groupDigits(total)} rows (${percentOf(done, total)} %)`;
}

/** Prints nothing: for callers (the console's import) that show no progress. */
export const NO_PROGRESS: RowProgress = {
  table: () => ({ advance: () => undefined, finish: () => undefined }),
  done: () => undefined,
};

export function rowProgress(options: RowProgressOptions): RowProgress {
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? 1000;
  let tables = 0;
  let rowsDone = 0;
  let rowsTotal = 0;
  return {
    table(name, total) {
      tables += 1;
      rowsTotal += total;
      let last = now();
      let latest = 0;
      let finished = false;
      return {
        advance(done) {
          latest = done;
          if (finished || now() - last < interval) return;
          last = now();
          options.write(progressLine(name, done, total));
        },
        finish(done = latest) {
          if (finished) return;
          finished = true;
          rowsDone += done;
          options.write(progressLine(name, done, total));
        },
      };
    },
    done() {
      options.write(
        progressLine(`done, ${tables} table${tables === 1 ? '' : 's'}`, rowsDone, rowsTotal),
      );
    },
  };
}
