/**
 * The window's security policy: which URLs may leave the app, where the window may navigate,
 * which permissions a page gets, and the CSP fallback. Pure decisions first (unit-tested),
 * then the thin functions that attach them to Electron objects.
 */

/** The part of Electron's `shell` needed to open links. */
export interface ShellLike {
  openExternal(url: string): Promise<void>;
}

/**
 * parseExternalUrl() returns the parsed URL when it is an absolute http(s) URL, else null.
 * Anything else (file:, javascript:, smb:, custom app protocols, relative paths) could run
 * code or reach local resources through the OS's handler, so it is never handed to the OS.
 */
export function parseExternalUrl(raw: unknown): URL | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 8192) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!url.hostname) return null;
  return url;
}

/**
 * safelyOpenExternal() opens an http(s) URL in the system browser and answers whether it did.
 * The URL opened is the parser's normalised form, not the caller's string.
 */
export async function safelyOpenExternal(raw: unknown, shell: ShellLike): Promise<boolean> {
  const url = parseExternalUrl(raw);
  if (!url) return false;
  await shell.openExternal(url.href);
  return true;
}

/** isSameOrigin() compares a URL's origin with the app's origin (scheme, host and port). */
export function isSameOrigin(raw: string, origin: string): boolean {
  try {
    return new URL(raw).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}

/** What to do with a navigation the page started. */
export type NavigationDecision = 'allow' | 'open-external' | 'block';

/**
 * navigationDecision() keeps the window on Herald's own origin: same-origin navigations stay,
 * http(s) links elsewhere open in the system browser, everything else is blocked.
 */
export function navigationDecision(raw: string, origin: string): NavigationDecision {
  if (isSameOrigin(raw, origin)) return 'allow';
  return parseExternalUrl(raw) ? 'open-external' : 'block';
}

/**
 * A strict CSP used only when a response from the server carries none: the server sets its own
 * (a browser on the LAN needs it too), and this fallback keeps the window safe should a route
 * forget. Element Plus sets inline styles, hence 'unsafe-inline' for styles only; hosted
 * messages may show remote images.
 */
export const FALLBACK_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Response headers as Electron's webRequest hands them over. */
export type ResponseHeaders = Record<string, string[] | string>;

/** withFallbackCsp() adds {@link FALLBACK_CSP} when the headers hold no CSP of their own. */
export function withFallbackCsp(headers: ResponseHeaders | undefined): ResponseHeaders {
  const result: ResponseHeaders = { ...(headers ?? {}) };
  const hasCsp = Object.keys(result).some((k) => k.toLowerCase() === 'content-security-policy');
  if (!hasCsp) result['Content-Security-Policy'] = [FALLBACK_CSP];
  return result;
}

/**
 * Permissions the window may use: writing to the clipboard (the console's "copy token"
 * buttons). Native notifications come from the main process, so pages get none of camera,
 * microphone, geolocation, notifications…
 */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

/** isPermissionAllowed() grants only allow-listed permissions, and only to Herald's origin. */
export function isPermissionAllowed(
  permission: string,
  requestingUrl: string,
  origin: string,
): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && isSameOrigin(requestingUrl, origin);
}

/**
 * A navigation event. Since Electron 25 the event carries `url` itself; the positional `url`
 * argument is deprecated but still passed, so either is read.
 */
export interface NavigationEventLike {
  preventDefault(): void;
  readonly url?: string;
}

/** The part of WebContents the window policy attaches to. */
export interface GuardedWebContentsLike {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(
    event: 'will-navigate' | 'will-redirect',
    listener: (event: NavigationEventLike, url: string) => void,
  ): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
}

/** The app's origin, or null while the server has not started (nothing may navigate then). */
export type OriginSource = () => string | null;

/**
 * guardWebContents() denies every new window (http(s) targets open in the system browser
 * instead), keeps navigation and redirects on the app's origin, and refuses <webview>.
 */
export function guardWebContents(
  contents: GuardedWebContentsLike,
  origin: OriginSource,
  openExternal: (url: string) => void,
): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (parseExternalUrl(url)) openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    const target = event.url ?? url;
    const decision = navigationDecision(target, origin() ?? '');
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'open-external') openExternal(target);
  });
  // A same-origin page that redirects elsewhere is stopped too; the server never does so.
  contents.on('will-redirect', (event, url) => {
    if (!isSameOrigin(event.url ?? url, origin() ?? '')) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** The part of Electron's `app` that announces new WebContents. */
export interface WebContentsCreatedSource {
  on(
    event: 'web-contents-created',
    listener: (event: unknown, contents: GuardedWebContentsLike) => void,
  ): unknown;
}

/**
 * guardEveryWebContents() applies {@link guardWebContents} to every WebContents the app ever
 * creates (the window, DevTools, anything a future feature or a compromised page opens), not
 * only the main window's. Registered before the first window exists.
 */
export function guardEveryWebContents(
  app: WebContentsCreatedSource,
  origin: OriginSource,
  openExternal: (url: string) => void,
): void {
  app.on('web-contents-created', (_event, contents) =>
    guardWebContents(contents, origin, openExternal),
  );
}

/** The part of Electron's Session the policy configures. */
export interface SessionLike {
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { url: string; responseHeaders?: ResponseHeaders },
        callback: (response: { responseHeaders?: ResponseHeaders }) => void,
      ) => void,
    ): void;
  };
  setPermissionRequestHandler(
    handler: (
      webContents: unknown,
      permission: string,
      callback: (granted: boolean) => void,
      details: { requestingUrl?: string },
    ) => void,
  ): void;
  setPermissionCheckHandler(
    handler: (webContents: unknown, permission: string, requestingOrigin: string) => boolean,
  ): void;
}

/** guardSession() applies the CSP fallback and the permission policy to a session. */
export function guardSession(session: SessionLike, origin: string): void {
  // No URL filter: Chromium's match patterns are awkward with ports, so the origin check is
  // done here. Other origins' headers pass through untouched.
  session.webRequest.onHeadersReceived((details, callback) => {
    if (!isSameOrigin(details.url, origin)) return callback({});
    callback({ responseHeaders: withFallbackCsp(details.responseHeaders) });
  });
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(isPermissionAllowed(permission, details.requestingUrl ?? '', origin));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionAllowed(permission, requestingOrigin, origin),
  );
}
