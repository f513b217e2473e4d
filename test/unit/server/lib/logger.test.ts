import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import {
  addLogSink,
  createEventLogger,
  createLogger,
  logFormat,
  setLogOutput,
  type LogLevel,
} from '../../../../server/lib/logger';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('the logger', () => {
  const written: Array<{ line: string; level: LogLevel }> = [];
  let restore: (() => void) | undefined;

  function capture(format: 'json' | 'text'): void {
    restore = setLogOutput({ write: (line, level) => written.push({ line, level }) }, format);
  }

  beforeEach(() => {
    written.length = 0;
    vi.stubEnv('HERALD_LOG', 'info');
  });
  afterEach(() => {
    restore?.();
    restore = undefined;
    vi.unstubAllEnvs();
  });

  it('writes pino JSON lines: level as a name, ISO time, module, message, an error serialized', () => {
    capture('json');
    const log = createLogger('unit-json');
    log.info('started');
    log.error('it failed', new Error('disk full'));
    log.warn('odd input', { field: 'name', count: 2 });

    expect(written.map((w) => w.level)).toEqual(['info', 'error', 'warn']);
    const [started, failed, odd] = written.map((w) => JSON.parse(w.line));
    expect(started).toMatchObject({ level: 'info', module: 'unit-json', msg: 'started' });
    expect(started.time).toMatch(ISO);
    expect(typeof started.pid).toBe('number');
    expect(failed).toMatchObject({ level: 'error', msg: 'it failed' });
    expect(failed.err).toMatchObject({ type: 'Error', message: 'disk full' });
    expect(failed.err.stack).toContain('Error: disk full');
    expect(odd.extra).toEqual({ field: 'name', count: 2 });
  });

  it('writes one readable text line as before: time, [LEVEL], [module], message, extra', () => {
    capture('text');
    const log = createLogger('unit-text');
    log.warn('slow answer', 'from the SMTP server');
    log.info('plain');
    const err = new Error('boom');
    log.error('crashed', err);

    const [slow, plain, crashed] = written.map((w) => w.line);
    expect(slow).toMatch(/^\S+Z \[WARN\] \[unit-text\] slow answer from the SMTP server$/);
    expect(slow.split(' ')[0]).toMatch(ISO);
    expect(plain).toMatch(/^\S+ \[INFO\] \[unit-text\] plain$/);
    expect(crashed).toContain('[ERROR] [unit-text] crashed Error: boom\n    at ');
    expect(written.some((w) => w.line.includes('"level"'))).toBe(false);
  });

  it('writes named fields as JSON keys, and as key=value in text', () => {
    const event = createEventLogger('unit-event');
    capture('json');
    event('info', 'request', { method: 'GET', path: '/a b', status: 200 });
    expect(JSON.parse(written[0].line)).toMatchObject({
      module: 'unit-event',
      msg: 'request',
      method: 'GET',
      path: '/a b',
      status: 200,
    });
    restore?.();
    capture('text');
    event('info', 'request', { method: 'GET', path: '/a b', status: 200 });
    expect(written[1].line).toMatch(
      /\[INFO\] \[unit-event\] request method=GET path="\/a b" status=200$/,
    );
  });

  it('writes nothing below the threshold, and everything at or above it', () => {
    capture('json');
    const log = createLogger('unit-threshold');
    vi.stubEnv('HERALD_LOG', 'warn');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    createEventLogger('unit-threshold')('info', 'request', { status: 200 });
    expect(written.map((w) => JSON.parse(w.line).msg)).toEqual(['w', 'e']);

    vi.stubEnv('HERALD_LOG', 'debug');
    log.debug('now shown');
    expect(JSON.parse(written[2].line)).toMatchObject({ level: 'debug', msg: 'now shown' });
  });

  it('is quiet under tests when HERALD_LOG is not set', () => {
    capture('json');
    vi.stubEnv('HERALD_LOG', undefined);
    createLogger('unit-quiet').error('not written');
    expect(written).toEqual([]);
  });

  it('gives log sinks (the desktop log file) the text line even when the output is JSON', () => {
    capture('json');
    const lines: string[] = [];
    const remove = addLogSink((line) => lines.push(line));
    try {
      createLogger('unit-sink').warn('careful', new Error('why'));
    } finally {
      remove();
    }
    createLogger('unit-sink').warn('after removal');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\S+ \[WARN\] \[unit-sink\] careful Error: why\n/);
    expect(JSON.parse(written[0].line).msg).toBe('careful');
  });

  it('chooses text on a terminal and JSON elsewhere, unless HERALD_LOG_FORMAT says', () => {
    expect(logFormat({}, true)).toBe('text');
    expect(logFormat({}, false)).toBe('json');
    expect(logFormat({ HERALD_LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(logFormat({ HERALD_LOG_FORMAT: 'TEXT' }, false)).toBe('text');
    expect(logFormat({ HERALD_LOG_FORMAT: 'yaml' }, false)).toBe('json');
  });

  it('prints to the console when no output is set: warnings and errors on stderr', () => {
    vi.stubEnv('HERALD_LOG_FORMAT', 'text');
    const out = vi.spyOn(console, 'log').mockImplementation(() => {});
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const log = createLogger('unit-console');
      log.info('to stdout');
      log.warn('to stderr');
      expect(out).toHaveBeenCalledWith(
        expect.stringMatching(/\[INFO\] \[unit-console\] to stdout$/),
      );
      expect(err).toHaveBeenCalledWith(
        expect.stringMatching(/\[WARN\] \[unit-console\] to stderr$/),
      );
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
});
