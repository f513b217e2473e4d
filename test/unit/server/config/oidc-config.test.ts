import { describe, expect, it } from 'vitest';

import { readHeraldConfig } from '../../../../server/config/herald-config';
import { localPath } from '../../../../server/features/sso/pending-login';
import { groupsOf, usernameOf } from '../../../../server/features/sso/sso-accounts';

describe('HERALD_OIDC_* at start', () => {
  const start = (env: NodeJS.ProcessEnv) => () => readHeraldConfig({ dataDir: '/tmp/unused' }, env);
  const issuer = {
    HERALD_OIDC_ISSUER: 'https://id.example.com/realms/team',
    HERALD_OIDC_CLIENT_ID: 'herald',
  };

  it('refuses bad values, naming the variable', () => {
    expect(start({ ...issuer, HERALD_OIDC_ISSUER: 'not a url' })).toThrow(
      /^HERALD_OIDC_ISSUER is not a URL/,
    );
    expect(start({ ...issuer, HERALD_OIDC_ISSUER: 'http://id.lan' })).toThrow(
      /^HERALD_OIDC_ISSUER uses plain http:\/\/.*HERALD_OIDC_ALLOW_HTTP=1/,
    );
    expect(start({ HERALD_OIDC_CLIENT_ID: 'herald' })).toThrow(
      'HERALD_OIDC_CLIENT_ID is set without HERALD_OIDC_ISSUER',
    );
    expect(start({ HERALD_OIDC_ISSUER: issuer.HERALD_OIDC_ISSUER })).toThrow(
      'HERALD_OIDC_ISSUER is set without HERALD_OIDC_CLIENT_ID',
    );
    expect(start({ ...issuer, HERALD_OIDC_AUTO_CREATE: 'maybe' })).toThrow(
      /^HERALD_OIDC_AUTO_CREATE must be 1 \(true\) or 0 \(false\)/,
    );
    expect(start({ ...issuer, HERALD_OIDC_ALLOW_HTTP: 'sure' })).toThrow(
      /^HERALD_OIDC_ALLOW_HTTP /,
    );
    expect(start({ ...issuer, HERALD_OIDC_SCOPES: 'profile email' })).toThrow(
      /^HERALD_OIDC_SCOPES must include openid/,
    );
    expect(start({ ...issuer, HERALD_OIDC_BUTTON_LABEL: 'x'.repeat(61) })).toThrow(
      /^HERALD_OIDC_BUTTON_LABEL must be at most 60/,
    );
  });

  it('takes good values', () => {
    const { oidc } = start({
      ...issuer,
      HERALD_OIDC_ISSUER: 'http://id.lan:9000',
      HERALD_OIDC_ALLOW_HTTP: '1',
      HERALD_OIDC_AUTO_CREATE: 'false',
      HERALD_OIDC_ADMIN_GROUPS: ' admins, ops ,,',
    })();
    expect(oidc).toEqual({
      allowHttp: true,
      values: {
        issuer: 'http://id.lan:9000',
        clientId: 'herald',
        autoCreate: false,
        adminGroups: ['admins', 'ops'],
      },
    });
  });
});

describe('where an OpenID Connect sign-in may land', () => {
  it('keeps local paths and sends everything else to /', () => {
    for (const kept of ['/', '/logs?page=2', '/messages/3#top', '/a/b%2Fc']) {
      expect(localPath(kept), kept).toBe(kept);
    }
    for (const refused of [
      undefined,
      '',
      'logs',
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      '/a\\b',
      'javascript:alert(1)',
      '/x\u0000y',
      '/x\ny',
      ' /x',
      `/${'x'.repeat(1000)}`,
    ]) {
      expect(localPath(refused), String(refused)).toBe('/');
    }
  });
});

describe("the claims' username and groups", () => {
  it('names an account from the configured claim, else preferred_username, then email', () => {
    expect(usernameOf({ preferred_username: 'alice', email: 'a@x' }, '')).toBe('alice');
    expect(usernameOf({ email: 'a@x' }, '')).toBe('a@x');
    expect(usernameOf({ preferred_username: 'alice', nickname: 'al' }, 'nickname')).toBe('al');
    expect(usernameOf({ preferred_username: 'alice' }, 'nickname')).toBeNull();
    // Usernames hold no spaces or control characters, and leave room for a -N suffix.
    expect(usernameOf({ preferred_username: ' Alice  Smith\t' }, '')).toBe('Alice-Smith');
    expect(usernameOf({ preferred_username: 'x'.repeat(150) }, '')).toHaveLength(94);
    expect(usernameOf({ preferred_username: 42 }, '')).toBeNull();
  });

  it('reads a list or a single group, and tells an absent claim apart', () => {
    expect(groupsOf({ groups: ['a', 'b', 3] }, 'groups')).toEqual(['a', 'b']);
    expect(groupsOf({ roles: 'admins' }, 'roles')).toEqual(['admins']);
    expect(groupsOf({}, 'groups')).toBeNull();
  });
});
