import { plainTextOf } from '../server/domain/plain-text';

/**
 * Native notifications for new hosted messages: the text (pure, unit-tested) and a notifier
 * that honours the notifications and do-not-disturb settings.
 */

/** A hosted message as the server's 'message' event carries it. */
export interface HostedMessageEvent {
  id: number;
  title: string;
  content: string;
  format: 'text' | 'html' | 'markdown' | string;
  url?: string | null;
  /** 1 … 5 as the sender gave it; null or absent when none was given. */
  priority?: number | null;
  createdAt?: string | Date;
}

/** What a native notification shows. */
export interface NotificationText {
  title: string;
  body: string;
}

/**
 * What the Notification constructor gets: the text, and for a priority other than the
 * default how insistent it is. `urgency` is read on Linux only and `timeoutType` on Linux and
 * Windows; macOS leaves both to the user's settings for Herald.
 */
export interface NotificationOptions extends NotificationText {
  urgency?: 'low' | 'normal' | 'critical';
  timeoutType?: 'default' | 'never';
  silent?: boolean;
}

/**
 * How a priority shows: 5 is critical and stays until dismissed (it is the one a user must
 * not miss when away from the screen), 4 is a normal notification even where a desktop
 * would treat Herald as low, 1–2 are low and make no sound. 3 and none add nothing, so they
 * show exactly as every notification did before priorities.
 */
export function priorityOptions(
  priority: number | null | undefined,
): Omit<NotificationOptions, keyof NotificationText> {
  if (priority === 5) return { urgency: 'critical', timeoutType: 'never' };
  if (priority === 4) return { urgency: 'normal' };
  if (priority === 1 || priority === 2) return { urgency: 'low', silent: true };
  return {};
}

/** notificationOptions() is the text of a message with its priority's options. */
export function notificationOptions(message: HostedMessageEvent): NotificationOptions {
  return { ...notificationFromMessage(message), ...priorityOptions(message.priority) };
}

/** Longest title and body shown; OS notification centres cut longer text anyway, mid-word. */
export const NOTIFICATION_LIMITS = { title: 100, body: 180 } as const;

/** truncate() cuts by code points (never halving an emoji) and marks the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join('');
  // Prefer ending at a word boundary when one is reasonably close.
  const space = cut.lastIndexOf(' ');
  const base = space >= max * 0.6 ? cut.slice(0, space) : cut;
  return `${base.trimEnd()}…`;
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * plainExcerpt() turns a message body into one line of the text its reader sees (Markdown
 * rendered, HTML read as text: server/domain/plain-text.ts), so the notification says what the
 * message says, with no markup and no Markdown syntax.
 */
export function plainExcerpt(content: string, format: string): string {
  return plainTextOf(content, format);
}

/**
 * notificationFromMessage() gives the notification's title (the message title, or a generic
 * one when empty) and a plain-text excerpt of the content as its body. Notification centres
 * render plain text only, so markup would show up literally.
 */
export function notificationFromMessage(message: HostedMessageEvent): NotificationText {
  const title = collapseWhitespace(message.title ?? '') || 'New message';
  const body = plainExcerpt(message.content ?? '', message.format);
  return {
    title: truncate(title, NOTIFICATION_LIMITS.title),
    body: truncate(body, NOTIFICATION_LIMITS.body),
  };
}

/**
 * What the window person's own quiet hours say about a message (issue 46 §1): `drop` shows
 * nothing, `hold` shows it when the window ends (`until`, epoch ms), `soften` shows it silently.
 */
export interface QuietNotice {
  action: 'hold' | 'soften' | 'drop';
  until: number;
}

/** The settings the notifier reads on every message (they can change at any time). */
export interface NotifierSettings {
  notifications: boolean;
  doNotDisturb: boolean;
}

/** Why a message did or did not produce a notification. */
export type NotifyOutcome =
  | 'shown'
  | 'disabled'
  | 'do-not-disturb'
  | 'unsupported'
  | 'quiet-hours-dropped'
  | 'quiet-hours-held';

/** notifyDecision() decides whether a new message becomes a native notification. */
export function notifyDecision(settings: NotifierSettings, supported: boolean): NotifyOutcome {
  if (!settings.notifications) return 'disabled';
  if (settings.doNotDisturb) return 'do-not-disturb';
  if (!supported) return 'unsupported';
  return 'shown';
}

/** The part of an Electron Notification the notifier uses. */
export interface NotificationLike {
  show(): void;
  on(event: 'click' | 'close', listener: () => void): unknown;
}

/**
 * How many notifications the notifier keeps referenced, and for how long. An Electron
 * Notification that is garbage-collected loses its click handler, so each is held until it is
 * clicked or closed; but `close` is not guaranteed (Electron's docs say so, and some Linux
 * notification daemons never send it), so without a bound the store would grow with every
 * message. A notification still listed a day later, or behind fifty newer ones, is dropped: the
 * message itself waits in the reader.
 */
export const LIVE_NOTIFICATIONS = { max: 50, lifetimeMs: 24 * 60 * 60_000 } as const;

/** Dependencies of the notifier. */
export interface NotifierDeps {
  isSupported(): boolean;
  create(options: NotificationOptions): NotificationLike;
  settings(): NotifierSettings;
  /** Clicking a notification opens the message in the window's reader. */
  openMessage(id: number): void;
  /** Observes every request (tests read it through a test-only hook). */
  onRequest?(request: { messageId: number; text: NotificationText; outcome: NotifyOutcome }): void;
  /** The clock, for the notifications' lifetime. */
  now?: () => number;
  /** Runs `show` at `at` (a held notification); default a timer that does not keep Herald up. */
  later?(at: number, show: () => void): void;
}

/** Turns new-message events into native notifications. */
export interface Notifier {
  /** `quiet`: what the person's quiet hours say about it (none: shown as usual). */
  notify(message: HostedMessageEvent, quiet?: QuietNotice | null): NotifyOutcome;
  /** Notifications still kept referenced (see {@link LIVE_NOTIFICATIONS}). */
  readonly pending: number;
  /** Drops the notifications past their lifetime (boot calls it on its unread timer). */
  prune(): void;
}

/** createNotifier() builds the notifier. */
export function createNotifier(deps: NotifierDeps): Notifier {
  const now = deps.now ?? Date.now;
  // Held until clicked, closed, expired or pushed out; a Map keeps them oldest first.
  const live = new Map<NotificationLike, number>();
  const prune = (): void => {
    const expired = now() - LIVE_NOTIFICATIONS.lifetimeMs;
    for (const [notification, shownAt] of live) {
      if (shownAt >= expired && live.size <= LIVE_NOTIFICATIONS.max) break;
      live.delete(notification);
    }
  };
  return {
    notify(message, quiet) {
      const options: NotificationOptions = {
        ...notificationOptions(message),
        // Softened: no sound, and no more insistent than a low notification.
        ...(quiet?.action === 'soften' && { urgency: 'low', silent: true, timeoutType: 'default' }),
      };
      const text = { title: options.title, body: options.body };
      // Do not disturb holds urgent messages back too: it has no exception list, and a user
      // who silenced Herald expects silence; the reader and the tray still show them.
      let outcome = notifyDecision(deps.settings(), deps.isSupported());
      if (outcome === 'shown' && quiet?.action === 'drop') outcome = 'quiet-hours-dropped';
      if (outcome === 'shown' && quiet?.action === 'hold') outcome = 'quiet-hours-held';
      deps.onRequest?.({ messageId: message.id, text, outcome });
      if (outcome === 'quiet-hours-held') {
        // Shown when the window ends, as the switches then allow; a restart forgets it (the
        // message waits in the reader either way).
        const later =
          deps.later ??
          ((at: number, run: () => void) => setTimeout(run, Math.max(0, at - now())).unref?.());
        later(quiet!.until, () => {
          this.notify(message);
        });
        return outcome;
      }
      if (outcome !== 'shown') return outcome;
      const notification = deps.create(options);
      live.set(notification, now());
      prune();
      notification.on('click', () => {
        live.delete(notification);
        deps.openMessage(message.id);
      });
      notification.on('close', () => live.delete(notification));
      notification.show();
      return outcome;
    },
    get pending() {
      return live.size;
    },
    prune,
  };
}

/** messageReaderPath() is the console route that shows one hosted message. */
export function messageReaderPath(id: number): string {
  return `/messages/${encodeURIComponent(String(id))}`;
}
