/**
 * The person the desktop follows: whoever the window's session signs in (the first
 * administrator after the desktop sign-in, or whoever signed in since). Read state is per
 * person on the server, so the tray, the badge and the notifications show that person's
 * unread count and nobody's once the window is signed out.
 */

/** The name of the console's session cookie (server/features/auth/auth-service.ts). */
export const SESSION_COOKIE = 'herald_session';

/** The part of Electron's session.cookies the desktop reads. */
export interface CookieJarLike {
  get(filter: { url: string; name: string }): Promise<Array<{ value: string }>>;
  on(
    event: 'changed',
    listener: (event: unknown, cookie: { name: string }, cause: string, removed: boolean) => void,
  ): unknown;
}

export interface WindowPersonDeps {
  cookies: CookieJarLike;
  /** The window's origin, whose cookie holds the session. */
  origin: string;
  server: {
    userOfSession(token: string): Promise<number | null>;
    unreadCount(userId: number): Promise<number>;
  };
  /** Shows the person's unread count (0 with nobody signed in). */
  show(unread: number): void;
  onError(err: unknown): void;
}

export interface WindowPerson {
  /** The user signed in in the window as of the last look, or null. */
  readonly userId: number | null;
  /** Looks at the window's session again and shows that person's count. */
  refresh(): Promise<void>;
  /** A person's reads changed (server `reads` event): shown if they are the window's person. */
  onReads(event: { userId: number; unreadCount: number }): void;
}

export function createWindowPerson(deps: WindowPersonDeps): WindowPerson {
  let userId: number | null = null;
  // Refreshes overlap (a cookie change during a poll): only the latest one's answer is shown.
  let generation = 0;
  const refresh = async (): Promise<void> => {
    const mine = ++generation;
    try {
      const [cookie] = await deps.cookies.get({ url: deps.origin, name: SESSION_COOKIE });
      const token = cookie ? decodeURIComponent(cookie.value) : '';
      const person = token ? await deps.server.userOfSession(token) : null;
      const unread = person === null ? 0 : await deps.server.unreadCount(person);
      if (mine !== generation) return;
      userId = person;
      deps.show(unread);
    } catch (err) {
      deps.onError(err);
    }
  };
  // Signing in or out in the window sets or clears the cookie: follow it at once.
  deps.cookies.on('changed', (_event, cookie) => {
    if (cookie.name === SESSION_COOKIE) void refresh();
  });
  return {
    get userId() {
      return userId;
    },
    refresh,
    onReads(event) {
      if (userId !== null && event.userId === userId) deps.show(event.unreadCount);
    },
  };
}
