/** The search box and day range that every history list (send logs, audit log) filters by. */
export interface HistoryFilterValues {
  q: string;
  range: [Date, Date] | null;
}

/** The filters unset: a fresh object each time, as usePagedList keeps its own copy. */
export function emptyHistoryFilters(): HistoryFilterValues {
  return { q: '', range: null };
}

function endOfDay(d: Date): Date {
  const e = new Date(d);
  e.setHours(23, 59, 59, 999);
  return e;
}

/** The history filters as the console API's `q`, `from` and `to`, each left out when unset. */
export function historyQuery(filters: Readonly<HistoryFilterValues>): {
  q?: string;
  from?: string;
  to?: string;
} {
  const { q, range } = filters;
  return {
    q: q.trim() || undefined,
    // The picker gives local days; the server takes instants, so send the local day bounds.
    from: range ? range[0].toISOString() : undefined,
    to: range ? endOfDay(range[1]).toISOString() : undefined,
  };
}
