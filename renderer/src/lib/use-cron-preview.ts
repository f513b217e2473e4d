import { onScopeDispose, ref, watch } from 'vue';

import { useSchedulesStore } from '../stores/schedules-store';
import { errorText } from './feedback';

/** Quiet time after the last keystroke before asking the server. */
const PREVIEW_DEBOUNCE_MS = 300;

/**
 * The next run times of a cron expression as it is typed, computed by the server (so they match
 * what the scheduler will do), one request per pause in typing. A refused expression leaves no
 * runs and the server's msg in `error`, shown next to the field (rule 2 in feedback.ts).
 */
export function useCronPreview(source: () => { cron: string; timezone: string; active: boolean }) {
  const schedules = useSchedulesStore();
  const runs = ref<string[]>([]);
  const error = ref<string | null>(null);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let seq = 0;

  async function run(cron: string, timezone: string) {
    const mine = ++seq;
    try {
      const answer = await schedules.preview(cron, timezone);
      if (mine !== seq) return;
      runs.value = answer.runs;
      error.value = null;
    } catch (err) {
      if (mine !== seq) return;
      runs.value = [];
      error.value = errorText(err);
    }
  }

  /** Asks again after the quiet time; at once clears the preview of what is no expression. */
  function refresh() {
    clearTimeout(timer);
    const { cron, timezone, active } = source();
    if (!active || !cron.trim()) {
      runs.value = [];
      error.value = null;
      return;
    }
    timer = setTimeout(() => void run(cron, timezone), PREVIEW_DEBOUNCE_MS);
  }

  watch(source, refresh);
  onScopeDispose(() => clearTimeout(timer));

  return { runs, error, refresh };
}
