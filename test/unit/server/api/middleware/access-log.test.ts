import { describe, expect, it } from 'vitest';

import {
  accessLevel,
  accessLogEnabled,
  loggedPath,
} from '../../../../../server/api/middleware/access-log';

describe('the access log path', () => {
  it('drops the query string, where a send carries its token', () => {
    expect(loggedPath('/api/v1/message/send?token=tok_secret123')).toBe('/api/v1/message/send?…');
    expect(loggedPath('/api/v2/message/send?a=1&token=tok_secret123')).toBe(
      '/api/v2/message/send?…',
    );
    expect(loggedPath('/api/console/status')).toBe('/api/console/status');
    expect(loggedPath('/page#tok_secret123')).toBe('/page?…');
  });

  it("replaces a hook URL's token and a share link's key with …", () => {
    expect(loggedPath('/api/hooks/github/tok_secret123')).toBe('/api/hooks/github/…');
    expect(loggedPath('/api/hooks/github/tok_secret123?x=1')).toBe('/api/hooks/github/…?…');
    expect(loggedPath('/API/Hooks/github/tok_secret123/')).toBe('/API/Hooks/github/…/');
    expect(loggedPath('//api//hooks/github//tok_secret123')).toBe('//api//hooks/github//…');
    expect(loggedPath('/api/hooks/github')).toBe('/api/hooks/github');
    expect(loggedPath('/api/public/preview/key_secret123')).toBe('/api/public/preview/…');
    expect(loggedPath('/preview/key_secret123')).toBe('/preview/…');
  });

  it('keeps only the path of an absolute request target, and hides anything else', () => {
    expect(loggedPath('http://herald.lan:8080/api/hooks/github/tok_secret123')).toBe(
      '/api/hooks/github/…',
    );
    expect(loggedPath('*')).toBe('…');
  });

  it('is on unless HERALD_ACCESS_LOG turns it off', () => {
    expect(accessLogEnabled({})).toBe(true);
    expect(accessLogEnabled({ HERALD_ACCESS_LOG: '1' })).toBe(true);
    expect(accessLogEnabled({ HERALD_ACCESS_LOG: '0' })).toBe(false);
    expect(accessLogEnabled({ HERALD_ACCESS_LOG: 'off' })).toBe(false);
  });

  it('writes a probe that succeeded at debug, and a failed one, like every other request, at info', () => {
    for (const probe of ['/healthz', '/readyz', '/metrics']) {
      expect(accessLevel(probe, 200)).toBe('debug');
      expect(accessLevel(probe, 503)).toBe('info');
    }
    expect(accessLevel('/metrics', 401)).toBe('info');
    expect(accessLevel('/healthz/', 200)).toBe('info');
    expect(accessLevel('/api/v1/message/send', 200)).toBe('info');
  });
});
