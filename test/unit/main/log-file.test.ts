import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { LOG_FILE_NAME, openLogFile, rotatedName } from '../../../main/log-file';

let root: string;
let logsDir: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'herald-log-file-'));
  // A folder that does not exist yet: openLogFile must create it.
  logsDir = path.join(root, 'logs');
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(root, { recursive: true, force: true });
});

const read = (name: string): string => readFileSync(path.join(logsDir, name), 'utf8');

describe('rotatedName', () => {
  it('rotatedName() puts the number before the extension', () => {
    expect(rotatedName('/var/logs/herald.log', 1)).toBe('/var/logs/herald.1.log');
    expect(rotatedName('/var/logs/herald.log', 12)).toBe('/var/logs/herald.12.log');
  });

  it('rotatedName() leaves dots in the folder alone and appends to a name without extension', () => {
    expect(rotatedName('/home/u/.config/Herald/logs/herald.log', 2)).toBe(
      '/home/u/.config/Herald/logs/herald.2.log',
    );
    expect(rotatedName('/a.b/herald', 3)).toBe('/a.b/herald.3');
  });
});

describe('openLogFile', () => {
  it('openLogFile() creates the logs folder and appends each line with a newline', () => {
    const log = openLogFile(logsDir);
    log.write('first');
    log.write('second line');

    expect(log.file).toBe(path.join(logsDir, LOG_FILE_NAME));
    expect(read('herald.log')).toBe('first\nsecond line\n');
  });

  it('openLogFile() appends to what an earlier run left in the file', () => {
    mkdirSync(logsDir);
    writeFileSync(path.join(logsDir, 'herald.log'), 'earlier run\n');

    openLogFile(logsDir).write('this run');

    expect(read('herald.log')).toBe('earlier run\nthis run\n');
  });

  it.skipIf(process.platform === 'win32')(
    'openLogFile() creates the file readable by its owner only, also after a rotation',
    () => {
      const log = openLogFile(logsDir, { maxBytes: 10 });
      log.write('12345');
      expect(statSync(log.file).mode & 0o777).toBe(0o600);

      log.write('67890');
      expect(existsSync(path.join(logsDir, 'herald.1.log'))).toBe(true);
      expect(statSync(log.file).mode & 0o777).toBe(0o600);
    },
  );

  it('openLogFile() rotates when the next line would pass maxBytes, keeping `keep` older files', () => {
    // Every line is 4 bytes with its newline, so two fill a file of 8 exactly.
    const log = openLogFile(logsDir, { maxBytes: 8, keep: 2 });
    for (const line of ['l01', 'l02', 'l03', 'l04', 'l05', 'l06', 'l07']) log.write(line);

    expect(readdirSync(logsDir).sort()).toEqual(['herald.1.log', 'herald.2.log', 'herald.log']);
    expect(read('herald.log')).toBe('l07\n');
    expect(read('herald.1.log')).toBe('l05\nl06\n');
    expect(read('herald.2.log')).toBe('l03\nl04\n');
  });

  it('openLogFile() fills a file up to exactly maxBytes before rotating', () => {
    const log = openLogFile(logsDir, { maxBytes: 8 });
    log.write('abc');
    log.write('def');

    expect(read('herald.log')).toBe('abc\ndef\n');
    expect(existsSync(path.join(logsDir, 'herald.1.log'))).toBe(false);

    log.write('g');
    expect(read('herald.log')).toBe('g\n');
    expect(read('herald.1.log')).toBe('abc\ndef\n');
  });

  it('openLogFile() writes a line longer than maxBytes into an empty file rather than rotating an empty one', () => {
    // Left empty by an earlier run: there is nothing worth moving to herald.1.log.
    mkdirSync(logsDir);
    writeFileSync(path.join(logsDir, 'herald.log'), '');
    const log = openLogFile(logsDir, { maxBytes: 4 });
    log.write('a line well past the cap');

    expect(read('herald.log')).toBe('a line well past the cap\n');
    expect(readdirSync(logsDir)).toEqual(['herald.log']);
  });

  it('openLogFile() keeps 3 older files by default', () => {
    const log = openLogFile(logsDir, { maxBytes: 2 });
    for (const line of ['1', '2', '3', '4', '5', '6']) log.write(line);

    expect(readdirSync(logsDir).sort()).toEqual([
      'herald.1.log',
      'herald.2.log',
      'herald.3.log',
      'herald.log',
    ]);
    expect(read('herald.log')).toBe('6\n');
    expect(read('herald.3.log')).toBe('3\n');
  });

  it('openLogFile() counts the bytes already in a reopened file towards the cap', () => {
    mkdirSync(logsDir);
    writeFileSync(path.join(logsDir, 'herald.log'), 'earlier run\n'); // 12 bytes

    // 12 + 5 passes 16: without counting the earlier bytes this would not rotate.
    openLogFile(logsDir, { maxBytes: 16 }).write('next');

    expect(read('herald.log')).toBe('next\n');
    expect(read('herald.1.log')).toBe('earlier run\n');
  });

  it('openLogFile() appends to a reopened file that still has room', () => {
    mkdirSync(logsDir);
    writeFileSync(path.join(logsDir, 'herald.log'), 'earlier run\n');

    openLogFile(logsDir, { maxBytes: 17 }).write('next');

    expect(read('herald.log')).toBe('earlier run\nnext\n');
    expect(existsSync(path.join(logsDir, 'herald.1.log'))).toBe(false);
  });

  it('openLogFile() does not throw when the logs folder became a file, says so once, and recovers', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const log = openLogFile(logsDir);
    log.write('before');
    rmSync(logsDir, { recursive: true });
    writeFileSync(logsDir, 'not a folder');

    expect(() => log.write('lost 1')).not.toThrow();
    expect(() => log.write('lost 2')).not.toThrow();
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0]?.[0])).toContain(log.file);

    rmSync(logsDir);
    mkdirSync(logsDir);
    log.write('after');
    expect(read('herald.log')).toBe('after\n');
    expect(error).toHaveBeenCalledTimes(1);

    // A new failing stretch is reported again.
    rmSync(logsDir, { recursive: true });
    writeFileSync(logsDir, 'not a folder');
    log.write('lost 3');
    expect(error).toHaveBeenCalledTimes(2);
  });

  it('openLogFile() does not throw when the log file became a folder, and recovers', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const log = openLogFile(logsDir);
    log.write('before');
    rmSync(log.file);
    mkdirSync(log.file);

    expect(() => log.write('lost 1')).not.toThrow();
    expect(() => log.write('lost 2')).not.toThrow();
    expect(error).toHaveBeenCalledTimes(1);

    rmSync(log.file, { recursive: true });
    log.write('after');
    expect(read('herald.log')).toBe('after\n');
    expect(error).toHaveBeenCalledTimes(1);
  });

  it('openLogFile() keeps the next line when the file was deleted before it was due to rotate', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const log = openLogFile(logsDir, { maxBytes: 8 });
    log.write('abc');
    log.write('def');
    // Someone clears the log while Herald runs: the count still says the file is full.
    rmSync(log.file);

    log.write('ghi');

    expect(read('herald.log')).toBe('ghi\n');
    expect(error).not.toHaveBeenCalled();
  });
});
