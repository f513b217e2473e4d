import { describe, expect, it } from 'vitest';

import {
  proxyGroups,
  proxyLogoutUrl,
  proxySettings,
  trustedPeers,
} from '../../../../../server/features/sso/auth-proxy';
import { parseAuthProxyConfig } from '../../../../../server/config/auth-proxy-config';

describe('trustedPeers()', () => {
  it('trusts the listed addresses, prefixes and named ranges, IPv4 seen through IPv6 included', () => {
    const trusted = trustedPeers(['10.0.0.5', '192.168.1.0/24', 'loopback', 'fd00::/8']);
    for (const address of [
      '10.0.0.5',
      '::ffff:10.0.0.5',
      '192.168.1.77',
      '127.0.0.1',
      '127.9.9.9',
      '::1',
      'fd12::1',
    ]) {
      expect(trusted(address), address).toBe(true);
    }
    for (const address of [
      '10.0.0.6',
      '::ffff:10.0.0.6',
      '192.168.2.1',
      'fe80::1',
      '2001:db8::1',
      'not-an-address',
      '',
      undefined,
    ]) {
      expect(trusted(address), String(address)).toBe(false);
    }
  });

  it('knows Express’s linklocal and uniquelocal', () => {
    const trusted = trustedPeers(['linklocal', 'uniquelocal']);
    expect(
      ['169.254.3.4', 'fe80::1', '10.1.2.3', '172.20.0.1', '192.168.0.1', 'fc00::1'].every(trusted),
    ).toBe(true);
    expect(['172.32.0.1', '8.8.8.8', '127.0.0.1'].some(trusted)).toBe(false);
  });
});

describe('proxyGroups()', () => {
  it('splits Authelia’s and oauth2-proxy’s commas and Authentik’s pipes', () => {
    expect(proxyGroups('admins,dev')).toEqual(['admins', 'dev']);
    expect(proxyGroups('admins, dev')).toEqual(['admins', 'dev']);
    expect(proxyGroups('authentik Admins|dev|')).toEqual(['authentik Admins', 'dev']);
    expect(proxyGroups('')).toEqual([]);
  });
});

describe('what the sign-in page and Settings → Sign-in read', () => {
  it('are null without the header, and the configured values with it', () => {
    expect(proxyLogoutUrl(null)).toBeNull();
    expect(proxySettings(null)).toBeNull();
    const config = parseAuthProxyConfig(
      {
        HERALD_AUTH_PROXY_HEADER: 'Remote-User',
        HERALD_AUTH_PROXY_GROUPS_HEADER: 'Remote-Groups',
        HERALD_AUTH_PROXY_LOGOUT_URL: 'https://auth.example.com/logout',
        HERALD_AUTH_PROXY_AUTO_CREATE: '0',
      },
      ['loopback'],
    );
    expect(proxyLogoutUrl(config)).toBe('https://auth.example.com/logout');
    expect(proxySettings(config)).toEqual({
      header: 'Remote-User',
      groupsHeader: 'Remote-Groups',
      logoutUrl: 'https://auth.example.com/logout',
      autoCreate: false,
    });
  });
});
