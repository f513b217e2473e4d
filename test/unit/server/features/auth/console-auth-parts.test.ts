import { describe, expect, it } from 'vitest';

import { SetupCode } from '../../../../../server/features/auth/setup-code';
import { LiveStreams } from '../../../../../server/api/console/events/live-streams';
import { parseTrustProxy } from '../../../../../server/config/trust-proxy';

describe('SetupCode', () => {
  it('issue() makes a fresh ten-character code in two groups, easy to type', () => {
    const a = new SetupCode();
    const b = new SetupCode();
    const codeA = a.issue();
    expect(codeA).toMatch(/^[2-9A-HJKMNP-TV-Z]{5}-[2-9A-HJKMNP-TV-Z]{5}$/);
    expect(b.issue()).not.toBe(codeA);
    expect(a.display()).toBe(codeA);
  });

  it('matches() accepts the code however it is typed and refuses anything else', () => {
    const code = new SetupCode();
    const issued = code.issue();
    expect(code.matches(issued)).toBe(true);
    expect(code.matches(` ${issued.toLowerCase().replace('-', ' ')} `)).toBe(true);
    expect(code.matches(issued.replace('-', ''))).toBe(true);
    expect(code.matches(issued.slice(0, -1))).toBe(false);
    expect(code.matches('')).toBe(false);
    const other = issued[0] === '2' ? `3${issued.slice(1)}` : `2${issued.slice(1)}`;
    expect(code.matches(other)).toBe(false);
  });

  it('expire() ends the code for good; before issue() nothing matches', () => {
    const code = new SetupCode();
    expect(code.display()).toBeNull();
    expect(code.matches('')).toBe(false);
    const issued = code.issue();
    code.expire();
    expect(code.display()).toBeNull();
    expect(code.matches(issued)).toBe(false);
  });
});

describe('LiveStreams', () => {
  it('add() refuses a session past its cap, and ending frees its slots', () => {
    const streams = new LiveStreams(2);
    const ended: string[] = [];
    const remove = streams.add('s1', 1, () => ended.push('a'));
    expect(remove).not.toBeNull();
    expect(streams.add('s1', 1, () => ended.push('b'))).not.toBeNull();
    expect(streams.add('s1', 1, () => ended.push('c'))).toBeNull();
    expect(streams.add('s2', 1, () => ended.push('d'))).not.toBeNull();
    remove!();
    expect(streams.countFor('s1')).toBe(1);
    expect(ended).toEqual([]);
  });

  it('endSession() ends only that session; endUser() ends all of the user', () => {
    const streams = new LiveStreams();
    const ended: string[] = [];
    streams.add('s1', 1, () => ended.push('s1'));
    streams.add('s2', 1, () => ended.push('s2'));
    streams.add('s3', 2, () => ended.push('s3'));
    streams.endSession('s1');
    expect(ended).toEqual(['s1']);
    streams.endUser(1);
    expect(ended).toEqual(['s1', 's2']);
    expect(streams.countFor('s3')).toBe(1);
  });
});

describe('parseTrustProxy()', () => {
  it('parseTrustProxy() trusts no one by default and takes names, addresses and prefixes', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy(' ')).toBe(false);
    expect(parseTrustProxy('loopback')).toEqual(['loopback']);
    expect(parseTrustProxy('loopback, 10.0.0.5 ,192.168.0.0/16,::1')).toEqual([
      'loopback',
      '10.0.0.5',
      '192.168.0.0/16',
      '::1',
    ]);
  });

  it('parseTrustProxy() refuses values that would trust every client, naming the setting', () => {
    for (const bad of ['true', '*', '1', 'proxy.example', '10.0.0.1/x', 'loopback/8']) {
      expect(() => parseTrustProxy(bad), bad).toThrow(
        /^HERALD_TRUST_PROXY: ".+" is not a proxy address/,
      );
    }
  });
});
