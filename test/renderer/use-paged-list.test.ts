import { afterEach, describe, expect, it, vi } from 'vitest';
import { effectScope } from 'vue';

import { ApiError } from '../../renderer/src/api/http-client';
import {
  FILTER_DEBOUNCE_MS,
  usePagedList,
  type PagedAnswer,
  type PagedQuery,
} from '../../renderer/src/lib/use-paged-list';

interface Filters {
  q: string;
  status: string;
}

/** A fetchPage whose answers the test releases one by one, in any order. */
function controlledFetch() {
  const requests: Array<{
    query: PagedQuery<Filters> & { filters: Filters };
    resolve(answer: PagedAnswer<string>): void;
    reject(err: unknown): void;
  }> = [];
  const fetchPage = (query: PagedQuery<Filters>) =>
    new Promise<PagedAnswer<string>>((resolve, reject) => {
      // A copy: the composable's filters object keeps changing after the call.
      requests.push({ query: { ...query, filters: { ...query.filters } }, resolve, reject });
    });
  return { requests, fetchPage };
}

/** Runs the composable in its own effect scope, as a component or a store would. */
function setup(options: { onAnswer?: (answer: PagedAnswer<string>) => void } = {}) {
  const fetch = controlledFetch();
  const scope = effectScope();
  const list = scope.run(() =>
    usePagedList({ filters: { q: '', status: '' }, fetchPage: fetch.fetchPage, ...options }),
  )!;
  return { ...fetch, list, scope };
}

const page = (items: string[], total = items.length): PagedAnswer<string> => ({ items, total });

afterEach(() => vi.useRealTimers());

describe('usePagedList', () => {
  it('load() keeps the newest answer when an older one arrives after it', async () => {
    const { list, requests } = setup();

    const older = list.load();
    const newer = list.load();
    requests[1].resolve(page(['new']));
    await newer;
    expect(list.loading.value).toBe(false);
    requests[0].resolve(page(['old', 'older']));
    await older;

    expect(list.items.value).toEqual(['new']);
    expect(list.total.value).toBe(1);
    expect(list.loaded.value).toBe(true);
  });

  it('load() stays loading until the newest request answers, and ignores an older failure', async () => {
    const { list, requests } = setup();

    const older = list.load();
    const newer = list.load();
    requests[0].reject(new ApiError(500, 'boom'));
    await older;
    expect(list.loading.value).toBe(true);
    expect(list.error.value).toBeNull();

    requests[1].resolve(page(['a']));
    await newer;
    expect(list.loading.value).toBe(false);
    expect(list.items.value).toEqual(['a']);
  });

  it('load() resolves on failure with the server msg in error, keeping the last items', async () => {
    const { list, requests } = setup();
    const first = list.load();
    requests[0].resolve(page(['kept']));
    await first;

    const failing = list.load();
    requests[1].reject(new ApiError(400, '页码无效'));
    await expect(failing).resolves.toBeUndefined();

    expect(list.error.value).toBe('页码无效');
    expect(list.items.value).toEqual(['kept']);
    expect(list.loading.value).toBe(false);

    const retry = list.load();
    expect(list.error.value).toBeNull();
    requests[2].resolve(page([]));
    await retry;
    expect(list.items.value).toEqual([]);
  });

  it('a filter change reloads once, from page 1, after the filters stop changing', async () => {
    vi.useFakeTimers();
    const { list, requests } = setup();
    list.page.value = 3;

    list.filters.q = 'd';
    list.filters.q = 'di';
    await vi.advanceTimersByTimeAsync(FILTER_DEBOUNCE_MS - 1);
    list.filters.status = 'failed';
    list.filters.q = 'disk';
    expect(requests).toHaveLength(0);

    await vi.advanceTimersByTimeAsync(FILTER_DEBOUNCE_MS);

    expect(requests).toHaveLength(1);
    expect(requests[0].query).toEqual({
      filters: { q: 'disk', status: 'failed' },
      page: 1,
      pageSize: 20,
    });
    expect(list.page.value).toBe(1);
  });

  it('load() during the quiet time takes the pending filter change: page 1, one request', async () => {
    vi.useFakeTimers();
    const { list, requests } = setup();
    list.page.value = 4;

    list.filters.q = 'disk';
    void list.load();
    await vi.advanceTimersByTimeAsync(FILTER_DEBOUNCE_MS * 2);

    expect(requests).toHaveLength(1);
    expect(requests[0].query.page).toBe(1);
    expect(requests[0].query.filters.q).toBe('disk');
  });

  it('a page change alone reloads nothing by itself; load() asks for that page', async () => {
    vi.useFakeTimers();
    const { list, requests } = setup();

    list.page.value = 2;
    await vi.advanceTimersByTimeAsync(FILTER_DEBOUNCE_MS * 2);
    expect(requests).toHaveLength(0);

    void list.load();
    expect(requests[0].query.page).toBe(2);
  });

  it('disposing the scope cancels a pending filter reload', async () => {
    vi.useFakeTimers();
    const { list, requests, scope } = setup();

    list.filters.q = 'disk';
    scope.stop();
    await vi.advanceTimersByTimeAsync(FILTER_DEBOUNCE_MS * 2);

    expect(requests).toHaveLength(0);
  });

  it('filtered says whether any filter differs from its initial value', () => {
    const { list } = setup();
    expect(list.filtered.value).toBe(false);

    list.filters.status = 'sent';
    expect(list.filtered.value).toBe(true);

    list.filters.status = '';
    expect(list.filtered.value).toBe(false);
  });

  it('passes totalIsCapped and the whole answer through, for applied answers only', async () => {
    const seen: PagedAnswer<string>[] = [];
    const { list, requests } = setup({ onAnswer: (answer) => seen.push(answer) });

    const older = list.load();
    const newer = list.load();
    requests[1].resolve({ items: ['x'], total: 10_000, totalIsCapped: true });
    await newer;
    requests[0].resolve(page(['stale']));
    await older;

    expect(list.total.value).toBe(10_000);
    expect(list.totalIsCapped.value).toBe(true);
    expect(seen).toEqual([{ items: ['x'], total: 10_000, totalIsCapped: true }]);

    const exact = list.load();
    requests[2].resolve(page(['y']));
    await exact;
    expect(list.totalIsCapped.value).toBe(false);
  });
});
