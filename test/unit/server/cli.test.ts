import { resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { parseHeadlessOptions, setupBanner, setupRecord } from '../../../server/cli';

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

describe('setupRecord()', () => {
  it('setupRecord() is one line with the code and the link as fields, the code findable by grep', () => {
    const { msg, fields } = setupRecord('http://127.0.0.1:8765', 'K7XQM-4RTPW');
    expect(msg).not.toContain('\n');
    expect(fields).toEqual({
      setupUrl: 'http://127.0.0.1:8765/sign-in?code=K7XQM-4RTPW',
      setupCode: 'K7XQM-4RTPW',
    });
    // The docs' `grep -o 'setup code: [^ ]*'` and the README walkthrough's reading of it.
    expect(/setup code: [^ ]*/.exec(msg)?.[0]).toBe('setup code: K7XQM-4RTPW');
    // grep reads line by line: the banner's line ends after the code.
    expect(
      /setup code: [^ \n]*/.exec(setupBanner('http://127.0.0.1:8765', 'K7XQM-4RTPW'))?.[0],
    ).toBe('setup code: K7XQM-4RTPW');
  });
});
