import { readonly, ref, type Ref } from 'vue';

/**
 * Below 768 px wide the console is laid out for a phone: the sidebar becomes a menu opened from
 * the header, and lists show cards. The CSS media queries (styles.css, ConsoleLayout, ListPage)
 * use the same width, `max-width: 767.98px`, so markup and styles switch together.
 */
export const PHONE_QUERY = '(max-width: 767.98px)';

let phone: Ref<boolean> | null = null;

/**
 * True while the window is phone-sized. One listener serves the whole app and lives as long as
 * the page: the layout and every list ask it, and the answer changes when a window is resized
 * or a phone turned.
 */
export function usePhone(): Readonly<Ref<boolean>> {
  if (!phone) {
    const state = ref(false);
    if (typeof window !== 'undefined' && typeof window.matchMedia === 'function') {
      const query = window.matchMedia(PHONE_QUERY);
      state.value = query.matches;
      query.addEventListener('change', (event) => {
        state.value = event.matches;
      });
    }
    phone = state;
  }
  return readonly(phone);
}

/** Forgets the listener, so a test can change the window's size before the next usePhone(). */
export function resetPhoneForTests(): void {
  phone = null;
}
