import { onMounted, ref, watch, type Ref } from 'vue';

import { errorText } from '../api/http-client';
import type { Page } from '../api/types';

export interface NamedListQuery {
  name?: string;
  page: number;
  pageSize: number;
}

/**
 * A paged list filtered by name, as the tasks and templates pages show it: loads on mount,
 * reloads from page 1 a moment after the filter stops changing, and keeps loading, empty and
 * error state for PageState.
 */
export function useNamedList<T>(fetchPage: (query: NamedListQuery) => Promise<Page<T>>) {
  const items = ref([]) as Ref<T[]>;
  const total = ref(0);
  const page = ref(1);
  const pageSize = ref(20);
  const name = ref('');
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<string | null>(null);

  async function load(): Promise<void> {
    loading.value = true;
    error.value = null;
    try {
      const data = await fetchPage({
        name: name.value.trim() || undefined,
        page: page.value,
        pageSize: pageSize.value,
      });
      items.value = data.items;
      total.value = data.total;
      loaded.value = true;
    } catch (err) {
      error.value = errorText(err);
    } finally {
      loading.value = false;
    }
  }
  onMounted(load);

  let filterTimer: ReturnType<typeof setTimeout> | null = null;
  watch(name, () => {
    if (filterTimer) clearTimeout(filterTimer);
    filterTimer = setTimeout(() => {
      page.value = 1;
      void load();
    }, 250);
  });

  return { items, total, page, pageSize, name, loading, loaded, error, load };
}
