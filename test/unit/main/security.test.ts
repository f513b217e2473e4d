import { describe, expect, it, vi } from 'vitest';

import {
  FALLBACK_CSP,
  guardSession,
  guardWebContents,
  isPermissionAllowed,
  isSameOrigin,
  navigationDecision,
  parseExternalUrl,
  safelyOpenExternal,
  withFallbackCsp,
  type GuardedWebContentsLike,
  type SessionLike,
} from '../../../main/security';

const ORIGIN = 'http://127.0.0.1:8765';

describe('parseExternalUrl', () => {
  it('parseExternalUrl() accepts absolute http and https URLs', () => {
    expect(parseExternalUrl('https://example.com/x?y=1')?.href).toBe('https://example.com/x?y=1');
    expect(parseExternalUrl('http://10.0.0.2:8080/')?.host).toBe('10.0.0.2:8080');
  });

  it('parseExternalUrl() refuses other schemes, relative URLs and non-strings', () => {
    for (const raw of [
      'file:///C:/Windows/System32/calc.exe',
      'javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'smb://server/share',
      'vbscript:msgbox',
      'ms-msdt:/id',
      '/relative/path',
      'example.com',
      '',
      42,
      null,
    ]) {
      expect(parseExternalUrl(raw)).toBeNull();
    }
  });

  it('parseExternalUrl() refuses a URL longer than 8 KiB', () => {
    expect(parseExternalUrl(`https://example.com/${'a'.repeat(9000)}`)).toBeNull();
  });
});

describe('safelyOpenExternal', () => {
  it('safelyOpenExternal() hands the normalised URL to the shell and answers true', async () => {
    const shell = { openExternal: vi.fn(async () => undefined) };

    await expect(safelyOpenExternal('HTTPS://Example.com/a b', shell)).resolves.toBe(true);
    expect(shell.openExternal).toHaveBeenCalledWith('https://example.com/a%20b');
  });

  it('safelyOpenExternal() never calls the shell for a refused URL', async () => {
    const shell = { openExternal: vi.fn(async () => undefined) };

    await expect(safelyOpenExternal('file:///etc/passwd', shell)).resolves.toBe(false);
    expect(shell.openExternal).not.toHaveBeenCalled();
  });
});

describe('navigationDecision', () => {
  it('navigationDecision() keeps same-origin navigations in the window', () => {
    expect(navigationDecision(`${ORIGIN}/messages/4`, ORIGIN)).toBe('allow');
  });

  it('navigationDecision() sends other http(s) sites to the browser, including another port', () => {
    expect(navigationDecision('https://docs.example.com/', ORIGIN)).toBe('open-external');
    expect(navigationDecision('http://127.0.0.1:9999/', ORIGIN)).toBe('open-external');
  });

  it('navigationDecision() blocks every other scheme', () => {
    expect(navigationDecision('file:///etc/passwd', ORIGIN)).toBe('block');
    expect(navigationDecision('javascript:void(0)', ORIGIN)).toBe('block');
  });
});

describe('isSameOrigin', () => {
  it('isSameOrigin() compares scheme, host and port and survives garbage', () => {
    expect(isSameOrigin(`${ORIGIN}/x`, ORIGIN)).toBe(true);
    expect(isSameOrigin('https://127.0.0.1:8765/x', ORIGIN)).toBe(false);
    expect(isSameOrigin('http://localhost:8765/x', ORIGIN)).toBe(false);
    expect(isSameOrigin('not a url', ORIGIN)).toBe(false);
  });
});

describe('withFallbackCsp', () => {
  it('withFallbackCsp() adds the strict CSP when the response has none', () => {
    const headers = withFallbackCsp({ 'Content-Type': ['text/html'] });

    expect(headers['Content-Security-Policy']).toEqual([FALLBACK_CSP]);
    expect(headers['Content-Type']).toEqual(['text/html']);
  });

  it('withFallbackCsp() keeps the server’s own CSP whatever the header case', () => {
    const headers = withFallbackCsp({ 'content-security-policy': ["default-src 'self'"] });

    expect(headers).toEqual({ 'content-security-policy': ["default-src 'self'"] });
  });

  it('FALLBACK_CSP starts from nothing and locks base-uri, framing and plugins', () => {
    expect(FALLBACK_CSP).toContain("default-src 'none'");
    expect(FALLBACK_CSP).toContain("script-src 'self'");
    expect(FALLBACK_CSP).toContain("base-uri 'none'");
    expect(FALLBACK_CSP).toContain("frame-ancestors 'none'");
    expect(FALLBACK_CSP).toContain("object-src 'none'");
    expect(FALLBACK_CSP).not.toContain('unsafe-eval');
  });
});

describe('isPermissionAllowed', () => {
  it('isPermissionAllowed() grants clipboard writes to Herald’s origin only', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', `${ORIGIN}/`, ORIGIN)).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://evil.example/', ORIGIN)).toBe(
      false,
    );
  });

  it('isPermissionAllowed() refuses media, geolocation and web notifications', () => {
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal']) {
      expect(isPermissionAllowed(permission, `${ORIGIN}/`, ORIGIN)).toBe(false);
    }
  });
});

describe('guardWebContents', () => {
  function fakeContents() {
    type Listener = (event: { preventDefault(): void; url?: string }, url?: string) => void;
    const listeners = new Map<string, Listener>();
    let openHandler: ((d: { url: string }) => { action: 'deny' }) | undefined;
    const contents: GuardedWebContentsLike = {
      setWindowOpenHandler: (h) => void (openHandler = h),
      on: (event: string, listener: Listener) => {
        listeners.set(event, listener);
        return contents;
      },
    } as GuardedWebContentsLike;
    /** Fires an event the way Electron ≥ 25 does (url on the event and positionally); true if stopped. */
    const fire = (name: string, url: string) => {
      const event = { preventDefault: vi.fn(), url };
      listeners.get(name)!(event, url);
      return event.preventDefault.mock.calls.length > 0;
    };
    const navigate = (url: string) => fire('will-navigate', url);
    return {
      contents,
      openWindow: (url: string) => openHandler!({ url }),
      navigate,
      fire,
      listeners,
    };
  }

  it('guardWebContents() denies every window.open and opens http(s) targets in the browser', () => {
    const { contents, openWindow } = fakeContents();
    const openExternal = vi.fn();
    guardWebContents(contents, () => ORIGIN, openExternal);

    expect(openWindow('https://example.com/')).toEqual({ action: 'deny' });
    expect(openWindow(`${ORIGIN}/messages/1`)).toEqual({ action: 'deny' });
    expect(openWindow('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(openExternal.mock.calls).toEqual([['https://example.com/'], [`${ORIGIN}/messages/1`]]);
  });

  it('guardWebContents() lets same-origin navigation through and stops the rest', () => {
    const { contents, navigate } = fakeContents();
    const openExternal = vi.fn();
    guardWebContents(contents, () => ORIGIN, openExternal);

    expect(navigate(`${ORIGIN}/logs`)).toBe(false);
    expect(navigate('https://example.com/')).toBe(true);
    expect(navigate('file:///etc/passwd')).toBe(true);
    expect(openExternal.mock.calls).toEqual([['https://example.com/']]);
  });

  it('guardWebContents() reads the URL from the positional argument on older event shapes', () => {
    const { contents, listeners } = fakeContents();
    const openExternal = vi.fn();
    guardWebContents(contents, () => ORIGIN, openExternal);
    const event = { preventDefault: vi.fn() };

    listeners.get('will-navigate')!(event, 'https://example.com/');

    expect(event.preventDefault).toHaveBeenCalledOnce();
    expect(openExternal).toHaveBeenCalledWith('https://example.com/');
  });

  it('guardWebContents() stops redirects that leave the origin', () => {
    const { contents, fire } = fakeContents();
    guardWebContents(contents, () => ORIGIN, vi.fn());

    expect(fire('will-redirect', `${ORIGIN}/`)).toBe(false);
    expect(fire('will-redirect', 'https://evil.example/')).toBe(true);
  });

  it('guardWebContents() refuses to attach a <webview>', () => {
    const { contents, listeners } = fakeContents();
    guardWebContents(contents, () => ORIGIN, vi.fn());
    const event = { preventDefault: vi.fn() };

    listeners.get('will-attach-webview')!(event);

    expect(event.preventDefault).toHaveBeenCalledOnce();
  });
});

describe('guardSession', () => {
  it('guardSession() adds the CSP fallback to Herald’s responses only and applies the permission policy', () => {
    type HeadersListener = Parameters<SessionLike['webRequest']['onHeadersReceived']>[0];
    type RequestHandler = Parameters<SessionLike['setPermissionRequestHandler']>[0];
    type CheckHandler = Parameters<SessionLike['setPermissionCheckHandler']>[0];
    let onHeaders: HeadersListener | undefined;
    let onRequest: RequestHandler | undefined;
    let onCheck: CheckHandler | undefined;
    guardSession(
      {
        webRequest: { onHeadersReceived: (l) => void (onHeaders = l) },
        setPermissionRequestHandler: (h) => void (onRequest = h),
        setPermissionCheckHandler: (h) => void (onCheck = h),
      },
      ORIGIN,
    );
    const answers: unknown[] = [];

    onHeaders!({ url: `${ORIGIN}/`, responseHeaders: {} }, (r) => answers.push(r));
    onHeaders!({ url: 'https://cdn.example/img.png', responseHeaders: {} }, (r) => answers.push(r));
    onRequest!(null, 'media', (granted) => answers.push(granted), { requestingUrl: `${ORIGIN}/` });
    answers.push(onCheck!(null, 'clipboard-sanitized-write', ORIGIN));

    expect(answers).toEqual([
      { responseHeaders: { 'Content-Security-Policy': [FALLBACK_CSP] } },
      {},
      false,
      true,
    ]);
  });
});
