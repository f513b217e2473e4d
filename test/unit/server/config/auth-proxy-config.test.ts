import { describe, expect, it } from 'vitest';

import { parseAuthProxyConfig } from '../../../../server/config/auth-proxy-config';
import { readHeraldConfig } from '../../../../server/config/herald-config';

const TRUSTED = ['10.0.0.5'];

describe('parseAuthProxyConfig()', () => {
  it('is off without HERALD_AUTH_PROXY_HEADER', () => {
    expect(parseAuthProxyConfig({}, false)).toBeNull();
    expect(parseAuthProxyConfig({ HERALD_AUTH_PROXY_HEADER: ' ' }, TRUSTED)).toBeNull();
  });

  it('reads the header, the groups header, the logout URL and auto-create (on by default)', () => {
    expect(
      parseAuthProxyConfig(
        {
          HERALD_AUTH_PROXY_HEADER: 'Remote-User',
          HERALD_AUTH_PROXY_GROUPS_HEADER: ' X-authentik-groups ',
          HERALD_AUTH_PROXY_LOGOUT_URL: 'https://auth.example.com/logout?rd=https%3A%2F%2Fherald',
        },
        TRUSTED,
      ),
    ).toEqual({
      header: 'remote-user',
      groupsHeader: 'x-authentik-groups',
      logoutUrl: 'https://auth.example.com/logout?rd=https%3A%2F%2Fherald',
      autoCreate: true,
      names: { header: 'Remote-User', groupsHeader: 'X-authentik-groups' },
    });
    const minimal = parseAuthProxyConfig(
      {
        HERALD_AUTH_PROXY_HEADER: 'X-Forwarded-Preferred-Username',
        HERALD_AUTH_PROXY_LOGOUT_URL: '/oauth2/sign_out',
        HERALD_AUTH_PROXY_AUTO_CREATE: 'off',
      },
      TRUSTED,
    );
    expect(minimal).toMatchObject({ groupsHeader: null, logoutUrl: '/oauth2/sign_out' });
    expect(minimal?.autoCreate).toBe(false);
  });

  it('refuses the header without trusted proxies, saying why and naming both variables', () => {
    expect(() => parseAuthProxyConfig({ HERALD_AUTH_PROXY_HEADER: 'Remote-User' }, false)).toThrow(
      /^HERALD_AUTH_PROXY_HEADER is set but HERALD_TRUST_PROXY is not: anyone who reaches Herald could send the header and sign in as anyone/,
    );
    // Through the whole configuration, as a start reads it.
    expect(() =>
      readHeraldConfig({ dataDir: '/nonexistent' }, { HERALD_AUTH_PROXY_HEADER: 'Remote-User' }),
    ).toThrow(/HERALD_TRUST_PROXY is not/);
    expect(
      readHeraldConfig(
        { dataDir: '/nonexistent' },
        { HERALD_AUTH_PROXY_HEADER: 'Remote-User', HERALD_TRUST_PROXY: 'loopback' },
      ).authProxy?.header,
    ).toBe('remote-user');
  });

  it('refuses bad values, naming the variable', () => {
    const refused: Array<[Record<string, string>, RegExp]> = [
      [
        { HERALD_AUTH_PROXY_HEADER: 'Remote User' },
        /^HERALD_AUTH_PROXY_HEADER: "Remote User" is not a header name/,
      ],
      [
        { HERALD_AUTH_PROXY_HEADER: 'Cookie' },
        /^HERALD_AUTH_PROXY_HEADER: "Cookie" is a standard header/,
      ],
      [
        { HERALD_AUTH_PROXY_HEADER: 'X-Forwarded-For' },
        /^HERALD_AUTH_PROXY_HEADER: "X-Forwarded-For" is a standard header/,
      ],
      [
        { HERALD_AUTH_PROXY_HEADER: 'Remote-User', HERALD_AUTH_PROXY_GROUPS_HEADER: 'remote-user' },
        /^HERALD_AUTH_PROXY_GROUPS_HEADER: "remote-user" is the user's header too/,
      ],
      [
        {
          HERALD_AUTH_PROXY_HEADER: 'Remote-User',
          HERALD_AUTH_PROXY_GROUPS_HEADER: 'Remote:Groups',
        },
        /^HERALD_AUTH_PROXY_GROUPS_HEADER: "Remote:Groups" is not a header name/,
      ],
      [
        {
          HERALD_AUTH_PROXY_HEADER: 'Remote-User',
          HERALD_AUTH_PROXY_LOGOUT_URL: 'javascript:alert(1)',
        },
        /^HERALD_AUTH_PROXY_LOGOUT_URL: "javascript:alert\(1\)" is not an http\(s\) URL or a path/,
      ],
      [
        {
          HERALD_AUTH_PROXY_HEADER: 'Remote-User',
          HERALD_AUTH_PROXY_LOGOUT_URL: '//evil.example/logout',
        },
        /^HERALD_AUTH_PROXY_LOGOUT_URL: /,
      ],
      [
        { HERALD_AUTH_PROXY_HEADER: 'Remote-User', HERALD_AUTH_PROXY_AUTO_CREATE: 'maybe' },
        /^HERALD_AUTH_PROXY_AUTO_CREATE must be 1 \(make an account for a new name\) or 0, not "maybe"/,
      ],
      [
        { HERALD_AUTH_PROXY_LOGOUT_URL: 'https://auth.example.com/logout' },
        /^HERALD_AUTH_PROXY_LOGOUT_URL is set but HERALD_AUTH_PROXY_HEADER is not/,
      ],
    ];
    for (const [env, message] of refused) {
      expect(() => parseAuthProxyConfig(env, TRUSTED), JSON.stringify(env)).toThrow(message);
    }
  });
});
