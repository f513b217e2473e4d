import { onBeforeUnmount, ref, type Ref } from 'vue';

/**
 * Follows the system's light/dark preference by toggling Element Plus's `dark` class on
 * <html> (its dark CSS variables hang off that class). Returns a function that stops following.
 */
export function followSystemTheme(root: HTMLElement = document.documentElement): () => void {
  if (typeof window.matchMedia !== 'function') return () => {};
  const query = window.matchMedia('(prefers-color-scheme: dark)');
  const apply = () => root.classList.toggle('dark', query.matches);
  apply();
  query.addEventListener('change', apply);
  return () => query.removeEventListener('change', apply);
}

/** Whether the dark theme is showing now. */
export function isDark(root: HTMLElement = document.documentElement): boolean {
  return root.classList.contains('dark');
}

/** A ref that is true while the system prefers the dark theme (for charts that need a theme). */
export function useSystemDark(): Ref<boolean> {
  const dark = ref(false);
  if (typeof window === 'undefined' || typeof window.matchMedia !== 'function') return dark;
  const query = window.matchMedia('(prefers-color-scheme: dark)');
  const update = () => {
    dark.value = query.matches;
  };
  update();
  query.addEventListener('change', update);
  onBeforeUnmount(() => query.removeEventListener('change', update));
  return dark;
}
