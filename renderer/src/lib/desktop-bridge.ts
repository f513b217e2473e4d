import type { Router } from 'vue-router';

// Type-only: the declaration file is self-contained, nothing of main/ is bundled.
import type { DesktopApi } from '../../../main/preload/desktop-api';

/**
 * The desktop window's bridge (`window.desktop`), or null in a browser, where every desktop
 * feature is simply absent.
 */
export function desktopBridge(): DesktopApi | null {
  return (typeof window !== 'undefined' && window.desktop) || null;
}

/** In the desktop window, a click on a message's native notification opens it in the reader. */
export function openMessagesFromNotifications(router: Router): void {
  desktopBridge()?.onOpenMessage((id) => {
    void router.push({ name: 'message', params: { id } });
  });
}

/**
 * The user changed the unread count: the desktop app re-reads it for the tray and the badge at
 * once rather than on its next poll. The count shown in the console does not depend on it.
 */
export function reportUnreadChanged(): void {
  desktopBridge()
    ?.unreadChanged()
    .catch(() => undefined);
}
