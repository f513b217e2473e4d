import { ref } from 'vue';

import type { UserRole } from '@contract';

/**
 * Why the router sent someone elsewhere than where they asked to go (issue 41: a viewer sent
 * away from a page got no word of it). The guard notes it; RedirectNotice shows it on the page
 * they landed on, until they go somewhere else.
 */
export type RedirectReason =
  /** The page needs a role above theirs (a bookmark, a link, or a role lowered meanwhile). */
  | { kind: 'role'; page: string; need: UserRole; role: UserRole | undefined; landed: string }
  /** Their administrator requires two-factor, and it is not set up yet. */
  | { kind: 'enrol'; landed: string };

export const redirectNotice = ref<RedirectReason | null>(null);

/** Called by the router's guard as it redirects. */
export function noteRedirect(reason: RedirectReason): void {
  redirectNotice.value = reason;
}

/** The console's name of a route's page, as the sidebar calls it (a detail route by its list). */
export function pageNavKey(routeName: string): string {
  return ({ log: 'logs', message: 'messages' } as Record<string, string>)[routeName] ?? routeName;
}
