import { ref, type Ref } from 'vue';

import { errorText } from './feedback';

/**
 * Something a page, drawer or card loads and shows through PageState (rule 1 in feedback.ts):
 * its data, loading / loaded / error, and `load()`.
 *
 * Each `load()` is numbered and only the newest one's answer or failure is applied, so a slower,
 * older request never overwrites a newer one. `load()` never throws: a failure lands in `error`
 * with the server's msg, and the data of the last success stays.
 */
export function useLoad<T>(fetchData: () => Promise<T>, options: { onData?(data: T): void } = {}) {
  const data = ref(null) as Ref<T | null>;
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<string | null>(null);
  let seq = 0;

  async function load(): Promise<void> {
    const mine = ++seq;
    loading.value = true;
    error.value = null;
    try {
      const answer = await fetchData();
      if (mine !== seq) return;
      data.value = answer;
      loaded.value = true;
      options.onData?.(answer);
    } catch (err) {
      if (mine === seq) error.value = errorText(err);
    } finally {
      if (mine === seq) loading.value = false;
    }
  }

  /** Forgets the data and any load under way: a drawer that switches to another item. */
  function reset(): void {
    seq += 1;
    data.value = null;
    loaded.value = false;
    loading.value = false;
    error.value = null;
  }

  return { data, loading, loaded, error, load, reset };
}
