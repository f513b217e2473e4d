import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { cliConfigPath, ConfigFileError, readCliConfig } from '../../../cli/cli-config';
import { DEFAULT_URL, parseSendArgs, SEND_HELP } from '../../../cli/send-args';
import { LIMITS } from '../../../contract/limits';
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
        priority: undefined,
        dedupKey: undefined,
        dedupWindow: undefined,
        digestKey: undefined,
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

  it('takes values that start with a dash (base64url tokens, "-5 °C"), but not a flag as a value', () => {
    const parsed = parseSendArgs(
      [
        '--token',
        '-AbC_12',
        '--title',
        '-5 °C',
        '--text',
        '-',
        '-p',
        '-k=-v',
        '--idempotency-key',
        '-k',
      ],
      {},
    );
    expect(parsed).toMatchObject({
      kind: 'send',
      options: {
        token: '-AbC_12',
        title: '-5 °C',
        text: undefined,
        placeholders: { '-k': '-v' },
        idempotencyKey: '-k',
      },
    });
    expect(parseSendArgs(['--token', 't', '--title', '--json'], {})).toMatchObject({
      kind: 'usage-error',
      message: expect.stringContaining("Option '--title' argument is ambiguous"),
    });
    expect(parseSendArgs([...base, '--dedup-key', 'k', '--dedup-window', '-5'], {})).toMatchObject({
      kind: 'usage-error',
      message: expect.stringContaining('"-5" is not a whole number of seconds'),
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
    [[...base, '--priority', '0'], 'is not 1-5 or min, low, default, high, max, urgent'],
    [[...base, '--priority', '6'], 'is not 1-5'],
    [[...base, '--priority', '2.5'], 'is not 1-5'],
    [[...base, '--priority', 'loud'], 'is not 1-5'],
    [[...base, '--priority', 'toString'], 'is not 1-5'],
    [[...base, '--priority', ''], 'is not 1-5'],
    [[...base, '--dedup-key', ''], '--dedup-key: must be 1 to 200'],
    [[...base, '--dedup-key', '   '], '--dedup-key: must be 1 to 200'],
    [[...base, '--digest-key', ''], '--digest-key: must be 1 to 200'],
    [[...base, '--digest-key', 'k'.repeat(201)], '--digest-key: must be 1 to 200'],
    [[...base, '--dedup-key', 'k'.repeat(201)], '--dedup-key: must be 1 to 200'],
    [[...base, '--dedup-window', '60'], '--dedup-window: give it with --dedup-key'],
    [[...base, '--dedup-key', 'k', '--dedup-window', '0'], 'from 1 to 86400'],
    [[...base, '--dedup-key', 'k', '--dedup-window', '86401'], 'from 1 to 86400'],
    [[...base, '--dedup-key', 'k', '--dedup-window', '1.5'], 'whole number of seconds'],
    [[...base, '--dedup-key', 'k', '--dedup-window', '5m'], 'whole number of seconds'],
    [[...base, '--dedup-key', 'k', '--dedup-window=-1'], 'whole number of seconds'],
  ])('refuses %j: %s', (argv, message) => {
    const parsed = parseSendArgs(argv, {});
    expect(parsed.kind).toBe('usage-error');
    expect(parsed.kind === 'usage-error' && parsed.message).toContain(message);
  });

  it('reads priorities as numbers 1-5 or ntfy’s names, as the send APIs do', () => {
    const priorityOf = (value: string) => {
      const parsed = parseSendArgs([...base, '--priority', value], {});
      return parsed.kind === 'send' ? parsed.options.priority : parsed.kind;
    };
    expect(
      ['1', '5', ' 3 ', 'min', 'LOW', 'default', 'high', 'max', 'urgent'].map(priorityOf),
    ).toEqual([1, 5, 3, 1, 2, 3, 4, 5, 5]);
  });

  it('reads --dedup-key and --dedup-window up to the send APIs’ limits', () => {
    const longest = 'k'.repeat(LIMITS.dedupKeyChars);
    expect(
      parseSendArgs(
        [...base, '--dedup-key', longest, '--dedup-window', String(LIMITS.dedupWindowMaxSeconds)],
        {},
      ),
    ).toMatchObject({
      options: { dedupKey: longest, dedupWindow: 86_400, priority: undefined },
    });
    // Without a window, Herald's default (300 s) applies: nothing is sent for it.
    expect(parseSendArgs([...base, '--dedup-key', 'disk-web-3'], {})).toMatchObject({
      options: { dedupKey: 'disk-web-3', dedupWindow: undefined },
    });
    expect(parseSendArgs([...base, '--dedup-key', 'k', '--dedup-window', '1'], {})).toMatchObject({
      options: { dedupWindow: 1 },
    });
  });

  it('documents the new flags with their limits and an example', () => {
    expect(SEND_HELP).toContain('--priority P');
    expect(SEND_HELP).toContain('min, low, default, high, max, urgent');
    expect(SEND_HELP).toContain('(1 to 200 characters)');
    expect(SEND_HELP).toContain('default 300, at most\n                         86400');
    expect(SEND_HELP).toMatch(/--priority high \\\n\s+--dedup-key disk-web-3 --dedup-window 3600/);
    expect(SEND_HELP).not.toContain('refused for now');
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

describe('herald send: HERALD_TOKEN_FILE', () => {
  const files: Record<string, string> = { '/run/secrets/herald': 'file-token\n' };
  const readFile = (path: string) => {
    if (path in files) return files[path];
    throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  };
  const token = (env: NodeJS.ProcessEnv, argv: string[] = [], file = {}) => {
    const parsed = parseSendArgs([...argv, '--title', 't'], env, file, readFile);
    return parsed.kind === 'send' ? parsed.options.token : parsed;
  };

  it('reads the token from the file, one trailing line end taken off', () => {
    expect(token({ HERALD_TOKEN_FILE: '/run/secrets/herald' })).toBe('file-token');
  });

  it('sits where HERALD_TOKEN does: under the flag, over the config file', () => {
    const env = { HERALD_TOKEN_FILE: '/run/secrets/herald' };
    expect(token(env, ['--token', 'flag'])).toBe('flag');
    expect(token(env, [], { token: 'config-token' })).toBe('file-token');
  });

  it('refuses both set, or a file it cannot read, naming the variables and not the token', () => {
    expect(token({ HERALD_TOKEN: 'env-token', HERALD_TOKEN_FILE: '/run/secrets/herald' })).toEqual({
      kind: 'usage-error',
      message: expect.stringContaining('HERALD_TOKEN and HERALD_TOKEN_FILE are both set'),
    });
    const missing = token({ HERALD_TOKEN_FILE: '/run/secrets/none' });
    expect(missing).toEqual({
      kind: 'usage-error',
      message: 'HERALD_TOKEN_FILE (/run/secrets/none) cannot be read (ENOENT)',
    });
    files['/run/secrets/empty'] = '\n';
    expect(token({ HERALD_TOKEN_FILE: '/run/secrets/empty' })).toMatchObject({
      message: 'HERALD_TOKEN_FILE (/run/secrets/empty) is empty',
    });
  });

  it('reads a real file by default', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-token-file-'));
    try {
      const file = path.join(dir, 'token');
      writeFileSync(file, 'real-token\n');
      const parsed = parseSendArgs(['--title', 't'], { HERALD_TOKEN_FILE: file });
      expect(parsed).toMatchObject({ options: { token: 'real-token' } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
