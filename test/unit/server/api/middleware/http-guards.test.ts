import { describe, expect, it } from 'vitest';

import { parseHeadlessOptions } from '../../../../../server/cli';
import {
  DEFAULT_MAX_CONNECTIONS,
  hostnameOf,
  httpGuardSettingsFromEnv,
  parseAllowedHosts,
  parseCorsOrigins,
  parseMaxConnections,
} from '../../../../../server/config/http-guards';
import { isOwnOrigin } from '../../../../../server/api/middleware/cross-site-guard';
import { jsonBodyProblem } from '../../../../../server/api/middleware/bad-input';

describe('HTTP guard settings', () => {
  it('hostnameOf() normalises a Host header and rejects anything but host[:port]', () => {
    expect(hostnameOf('LocalHost:8765')).toBe('localhost');
    expect(hostnameOf('localhost.')).toBe('localhost');
    expect(hostnameOf('[::1]:80')).toBe('[::1]');
    expect(hostnameOf('127.1')).toBe('127.0.0.1');
    expect(hostnameOf('evil@127.0.0.1')).toBeUndefined();
    expect(hostnameOf('a b')).toBeUndefined();
    expect(hostnameOf('')).toBeUndefined();
  });

  it('parseAllowedHosts() takes names and addresses, ignores ports and blanks, and names the setting on a bad entry', () => {
    expect(parseAllowedHosts(' Herald.LAN , 192.168.1.5:8765,,fe80::1 ,[::2]')).toEqual([
      'herald.lan',
      '192.168.1.5',
      '[fe80::1]',
      '[::2]',
    ]);
    expect(parseAllowedHosts(undefined)).toEqual([]);
    expect(() => parseAllowedHosts('https://herald.lan')).toThrow(
      /^HERALD_ALLOWED_HOSTS: "https:\/\/herald.lan" is not a host name/,
    );
  });

  it('parseCorsOrigins() takes scheme://host[:port] only', () => {
    expect(parseCorsOrigins('https://Dash.example, http://localhost:3000/')).toEqual([
      'https://dash.example',
      'http://localhost:3000',
    ]);
    for (const bad of ['dash.example', 'https://dash.example/app', 'ftp://x.example', '*']) {
      expect(() => parseCorsOrigins(bad), bad).toThrow(
        /^HERALD_CORS_ORIGINS: .* is not a web origin/,
      );
    }
  });

  it('parseMaxConnections() defaults to 1024 and refuses non-positive or fractional values', () => {
    expect(parseMaxConnections(undefined)).toBe(DEFAULT_MAX_CONNECTIONS);
    expect(parseMaxConnections(' 64 ')).toBe(64);
    for (const bad of ['0', '-1', '1.5', 'many']) {
      expect(() => parseMaxConnections(bad), bad).toThrow(/^HERALD_MAX_CONNECTIONS must be/);
    }
    expect(httpGuardSettingsFromEnv({ HERALD_MAX_CONNECTIONS: '8' }).maxConnections).toBe(8);
  });

  it('parseHeadlessOptions() reads --allowed-hosts and --cors-origins as lists', () => {
    const options = parseHeadlessOptions(
      ['--allowed-hosts', 'a.lan,b.lan', '--cors-origins', 'https://d.example'],
      {},
    );
    expect(options.allowedHosts).toEqual(['a.lan', 'b.lan']);
    expect(options.corsOrigins).toEqual(['https://d.example']);
    expect(parseHeadlessOptions([], {}).allowedHosts).toBeUndefined();
  });

  it('isOwnOrigin() compares an Origin with the Host the request was addressed to', () => {
    expect(isOwnOrigin('http://127.0.0.1:8765', '127.0.0.1:8765')).toBe(true);
    expect(isOwnOrigin('https://herald.example', 'herald.example:443')).toBe(true);
    expect(isOwnOrigin('http://127.0.0.1:3000', '127.0.0.1:8765')).toBe(false);
    expect(isOwnOrigin('null', '127.0.0.1:8765')).toBe(false);
    expect(isOwnOrigin('http://127.0.0.1:8765', undefined)).toBe(false);
  });

  it('jsonBodyProblem() finds deep nesting and control characters without recursing', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(jsonBodyProblem(deep)).toMatch(/nested more than 32 levels deep/);
    expect(jsonBodyProblem({ a: [{ b: 'x\u0000' }] })).toMatch(
      /^a\.0\.b: contains a control character/,
    );
    expect(jsonBodyProblem({ ok: 'tab\there\r\n', n: 1, z: null })).toBeUndefined();
  });
});
