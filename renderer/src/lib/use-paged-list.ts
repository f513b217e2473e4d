import { computed, onScopeDispose, reactive, ref, watch, type Ref, type UnwrapRef } from 'vue';

import { useLoad } from './use-load';

/** One page of a list as the console API answers it. */
export interface PagedAnswer<T> {
  items: T[];
  total: number;
  /**
   * Set by lists whose total is capped or estimated rather than counted; passed through as the
   * list's `totalIsCapped` so a page can say "10,000+". Absent means exact.
   */
  totalIsCapped?: boolean;
}

/** What the fetch function is asked for: the current filters and the page wanted. */
export interface PagedQuery<F> {
  filters: Readonly<UnwrapRef<F>>;
  page: number;
  pageSize: number;
}

export interface PagedListOptions<F extends object, A extends PagedAnswer<unknown>> {
  /** Initial filter values; a filter differing from its initial value makes the list "filtered". */
  filters: F;
  fetchPage(query: PagedQuery<F>): Promise<A>;
  pageSize?: number;
  /** Quiet time after the last filter change before reloading from page 1. */
  debounceMs?: number;
  /** Called with each answer that is applied (not with stale ones), for extras a list carries. */
  onAnswer?(answer: A): void;
}

/** Default quiet time after typing in a filter: long enough to skip one request per keystroke. */
export const FILTER_DEBOUNCE_MS = 300;

/**
 * What ListPage shows of a list: a {@link usePagedList} (made `reactive`), the messages store,
 * or a whole list loaded at once (no pager).
 */
export interface ListState {
  loading: boolean;
  loaded: boolean;
  error: string | null;
  total: number;
  /** A filter is set: an empty answer then means "no matches", not "nothing yet". */
  filtered?: boolean;
  totalIsCapped?: boolean;
  page?: number;
  pageSize?: number;
  load(): unknown;
  setPage?(page: number): unknown;
  setPageSize?(pageSize: number): unknown;
}

/**
 * A paged, filtered list with loading, empty and error state for PageState, used by every list
 * page (through ListPage) and the reader's store.
 *
 * - `load()` fetches the current page. It is a {@link useLoad}: only the newest call's answer (or
 *   error) is applied, so a slower, older request never overwrites a newer one, and it never
 *   throws: a failure lands in `error`.
 * - Changing a filter reloads from page 1 once the filters have been quiet for `debounceMs`; an
 *   explicit `load()` in the meantime takes the pending change with it (page 1, one request).
 * - `setPage()` and `setPageSize()` are the pager's: they change the page and load it.
 * - Nothing loads by itself: ListPage calls `load()` when the page mounts, so a store can own a
 *   list without fetching before anything shows it.
 */
export function usePagedList<F extends object, A extends PagedAnswer<unknown>>(
  options: PagedListOptions<F, A>,
) {
  const initialFilters = { ...options.filters };
  const filters = reactive({ ...options.filters });
  const items = ref([]) as Ref<A['items']>;
  const total = ref(0);
  const totalIsCapped = ref(false);
  const page = ref(1);
  const pageSize = ref(options.pageSize ?? 20);

  const filtered = computed(() =>
    (Object.keys(initialFilters) as (keyof typeof filters)[]).some(
      (key) => filters[key] !== (initialFilters as typeof filters)[key],
    ),
  );

  const loader = useLoad(
    () =>
      options.fetchPage({
        filters: filters as Readonly<UnwrapRef<F>>,
        page: page.value,
        pageSize: pageSize.value,
      }),
    {
      onData: (answer) => {
        items.value = answer.items;
        total.value = answer.total;
        totalIsCapped.value = answer.totalIsCapped === true;
        options.onAnswer?.(answer);
      },
    },
  );

  let filterTimer: ReturnType<typeof setTimeout> | null = null;

  function takePendingFilterChange(): void {
    if (!filterTimer) return;
    clearTimeout(filterTimer);
    filterTimer = null;
    page.value = 1;
  }

  async function load(): Promise<void> {
    takePendingFilterChange();
    await loader.load();
  }

  function setPage(next: number): Promise<void> {
    page.value = next;
    return load();
  }

  function setPageSize(next: number): Promise<void> {
    pageSize.value = next;
    return load();
  }

  // Synchronous so that a load() right after setting a filter already sees the change pending.
  watch(
    filters,
    () => {
      if (filterTimer) clearTimeout(filterTimer);
      filterTimer = setTimeout(() => {
        filterTimer = null;
        page.value = 1;
        void load();
      }, options.debounceMs ?? FILTER_DEBOUNCE_MS);
    },
    { deep: true, flush: 'sync' },
  );
  onScopeDispose(() => {
    if (filterTimer) clearTimeout(filterTimer);
    filterTimer = null;
  });

  return {
    items,
    total,
    totalIsCapped,
    page,
    pageSize,
    filters,
    filtered,
    loading: loader.loading,
    loaded: loader.loaded,
    error: loader.error,
    load,
    setPage,
    setPageSize,
  };
}
