import { onScopeDispose, watch } from 'vue';

/**
 * Reloads what a page shows when the event stream reports a change to it (a live-store
 * counter), at most once per `everyMs`: sends arrive in bursts.
 */
export function useLiveRefresh(changes: () => unknown, load: () => unknown, everyMs: number): void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  watch(changes, () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      void load();
    }, everyMs);
  });
  onScopeDispose(() => {
    if (timer) clearTimeout(timer);
  });
}
