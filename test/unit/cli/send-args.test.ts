import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { cliConfigPath, ConfigFileError, readCliConfig } from '../../../cli/cli-config';
import { DEFAULT_URL, parsePriority, parseSendArgs } from '../../../cli/send-args';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../../server/config/herald-config';

const base = ['--token', 'tok', '--title', 'hello'];

describe('herald send: the argument parser', () => {
  it('defaults to Herald’s own address', () => {
    expect(DEFAULT_URL).toBe(`http://${DEFAULT_HOST}:${DEFAULT_PORT}`);
    expect(parseSendArgs(base, {})).toEqual({
      kind: 'send',
      options: {
        url: DEFAULT_URL,
        token: 'tok',
        title: 'hello',
        text: undefined,
        placeholders: {},
        idempotencyKey: undefined,
        json: false,
      },
    });
  });

  it('flags win over the environment, which wins over the config file', () => {
    const file = { url: 'http://file:1', token: 'file-token' };
    const env = { HERALD_URL: 'http://env:2/', HERALD_TOKEN: 'env-token' };
    const read = (argv: string[], e: NodeJS.ProcessEnv) => {
      const parsed = parseSendArgs([...argv, '--title', 't'], e, file);
      return parsed.kind === 'send' ? [parsed.options.url, parsed.options.token] : parsed;
    };
    expect(read([], {})).toEqual(['http://file:1', 'file-token']);
    expect(read([], env)).toEqual(['http://env:2', 'env-token']);
    expect(read(['--url', 'https://flag/herald/', '--token', 'f'], env)).toEqual([
      'https://flag/herald',
      'f',
    ]);
    // An empty variable counts as unset.
    expect(read([], { HERALD_URL: '', HERALD_TOKEN: '' })).toEqual(['http://file:1', 'file-token']);
  });

  it('reads -p key=value (repeatable, split at the first =), --text, --json, --idempotency-key', () => {
    const parsed = parseSendArgs(
      [...base, '-p', 'a=1', '--placeholder', 'b=x=y', '-p', 'a=2', '-p', 'e=', '--text', 'hi'],
      {},
    );
    expect(parsed).toMatchObject({
      options: { placeholders: { a: '2', b: 'x=y', e: '' }, text: 'hi' },
    });
    expect(parseSendArgs([...base, '--text', '-'], {})).toMatchObject({
      options: { text: undefined },
    });
    expect(parseSendArgs([...base, '--json', '--idempotency-key', 'k-1'], {})).toMatchObject({
      options: { json: true, idempotencyKey: 'k-1' },
    });
  });

  it('answers help for -h and --help', () => {
    expect(parseSendArgs(['-h'], {})).toEqual({ kind: 'help' });
    expect(parseSendArgs(['--help', '--bogus-is-ignored-after'], {}).kind).toBe('usage-error');
    expect(parseSendArgs(['--title', 'x', '--help'], {})).toEqual({ kind: 'help' });
  });

  it.each([
    [[], '--token is required'],
    [['--token', 'tok'], '--title is required'],
    [['--token', 'tok', '--title', '  '], '--title is required'],
    [[...base, 'extra'], 'Unexpected argument'],
    [[...base, '-p', '=v'], 'is not key=value'],
    [[...base, '-p', 'k'], 'is not key=value'],
    [[...base, '--url', 'herald.local'], 'is not an http:// or https://'],
    [[...base, '--url', 'http://h/?q=1'], 'is not an http:// or https://'],
    [[...base, '--idempotency-key', ' '], '--idempotency-key: must be 1 to 255'],
    [[...base, '--idempotency-key', 'k'.repeat(256)], '--idempotency-key: must be 1 to 255'],
    [[...base, '--idempotency-key', 'schlüssel'], 'printable ASCII'],
    [[...base, '--priority', '0'], 'is not 1-5'],
    [[...base, '--priority', 'loud'], 'is not 1-5'],
    [[...base, '--priority', '4'], 'does not support message priorities yet'],
    [[...base, '--priority', 'urgent'], 'does not support message priorities yet'],
    [[...base, '--dedup-key', ''], '--dedup-key: must be 1 to 200'],
    [[...base, '--dedup-key', 'k'.repeat(201)], '--dedup-key: must be 1 to 200'],
    [[...base, '--dedup-key', 'disk-web-3'], 'does not support dedup keys yet'],
  ])('refuses %j: %s', (argv, message) => {
    const parsed = parseSendArgs(argv, {});
    expect(parsed.kind).toBe('usage-error');
    expect(parsed.kind === 'usage-error' && parsed.message).toContain(message);
  });

  it('reads priorities as numbers 1-5 or ntfy’s names', () => {
    expect(
      ['1', '5', ' 3 ', 'min', 'LOW', 'default', 'high', 'max', 'urgent'].map(parsePriority),
    ).toEqual([1, 5, 3, 1, 2, 3, 4, 5, 5]);
    expect(['0', '6', '2.5', '', 'toString', 'constructor'].map(parsePriority)).toEqual(
      Array(6).fill(undefined),
    );
  });
});

describe('herald send: the config file', () => {
  it('lives under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(cliConfigPath({ XDG_CONFIG_HOME: '/x/conf' })).toBe(
      path.join('/x/conf', 'herald', 'cli.json'),
    );
    expect(cliConfigPath({})).toBe(path.join(homedir(), '.config', 'herald', 'cli.json'));
    // A relative XDG_CONFIG_HOME is invalid by the spec and ignored.
    expect(cliConfigPath({ XDG_CONFIG_HOME: 'rel' })).toBe(
      path.join(homedir(), '.config', 'herald', 'cli.json'),
    );
  });

  it('reads url and token, is optional, and refuses a file it cannot use', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-cli-conf-'));
    try {
      const file = path.join(dir, 'cli.json');
      expect(readCliConfig(file)).toEqual({});
      writeFileSync(file, JSON.stringify({ url: 'http://h:1', token: 't', later: true }));
      expect(readCliConfig(file)).toEqual({ url: 'http://h:1', token: 't' });
      writeFileSync(file, '{"token": 5}');
      expect(() => readCliConfig(file)).toThrow(ConfigFileError);
      writeFileSync(file, '[]');
      expect(() => readCliConfig(file)).toThrow(/must be a JSON object/);
      writeFileSync(file, 'url=x');
      expect(() => readCliConfig(file)).toThrow(/not JSON/);
      mkdirSync(path.join(dir, 'folder.json'));
      expect(() => readCliConfig(path.join(dir, 'folder.json'))).toThrow(ConfigFileError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
