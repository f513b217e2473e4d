import { resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { parseHeadlessOptions, setupBanner } from '../../../server/cli';

describe('parseHeadlessOptions()', () => {
  it('parseHeadlessOptions() defaults to 127.0.0.1:8765 and ./data', () => {
    expect(parseHeadlessOptions([], {})).toEqual({
      host: '127.0.0.1',
      port: 8765,
      dataDir: resolve('data'),
    });
  });

  it('parseHeadlessOptions() takes HERALD_* variables, and flags over them', () => {
    const env = { HERALD_PORT: '9000', HERALD_DATA_DIR: '/tmp/h', HERALD_HOST: '0.0.0.0' };
    expect(parseHeadlessOptions([], env)).toEqual({
      host: '0.0.0.0',
      port: 9000,
      dataDir: '/tmp/h',
    });
    expect(parseHeadlessOptions(['--port', '9100', '--data-dir', '/tmp/x'], env)).toEqual({
      host: '0.0.0.0',
      port: 9100,
      dataDir: '/tmp/x',
    });
  });

  it('parseHeadlessOptions() refuses a bad port and unknown flags', () => {
    expect(() => parseHeadlessOptions(['--port', 'http'], {})).toThrow(/port must be a number/);
    expect(() => parseHeadlessOptions(['--bogus'], {})).toThrow();
  });
});

describe('setupBanner()', () => {
  it('setupBanner() shows the setup code and the link that fills it in', () => {
    const banner = setupBanner('http://127.0.0.1:8765', 'K7XQM-4RTPW');
    expect(banner).toContain('http://127.0.0.1:8765/sign-in?code=K7XQM-4RTPW');
    expect(banner).toMatch(/one-time setup code: K7XQM-4RTPW$/m);
  });
});
