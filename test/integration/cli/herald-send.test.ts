import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';
import { freePort } from '../../helpers/herald-process';
import { heraldArgs } from '../../helpers/herald-bin';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

const root = path.join(import.meta.dirname, '..', '..', '..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `herald send` as a user runs it: the bin (server/bin.ts, built into out/server/cli.js,
 * test/helpers/herald-bin.ts) in a child process, against a real Herald over loopback HTTP.
 */
describe('herald send, run as a process', () => {
  let herald: TestHerald;
  let hostedId: number;
  let configHome: string;

  beforeAll(async () => {
    herald = await startTestHerald();
    hostedId = (await herald.createChannel('hosted', {})).id;
    configHome = mkdtempSync(path.join(tmpdir(), 'herald-cli-config-'));
  });
  afterAll(async () => {
    await herald.close(true);
    rmSync(configHome, { recursive: true, force: true });
  });

  /** Runs `herald send ARGS`; env has no HERALD_URL/HERALD_TOKEN and an empty config folder. */
  const send = (
    args: string[],
    options: { stdin?: string; env?: Record<string, string> } = {},
  ): Promise<Run> => {
    const { HERALD_URL: _u, HERALD_TOKEN: _t, ...env } = process.env;
    const child = spawn(process.execPath, heraldArgs(['send', ...args]), {
      cwd: root,
      env: { ...env, XDG_CONFIG_HOME: path.join(configHome, 'empty'), ...options.env },
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    if (options.stdin !== undefined) child.stdin!.end(options.stdin);
    return new Promise((resolve) =>
      child.once('close', (code) => resolve({ code, stdout, stderr })),
    );
  };

  const messagesTitled = async (title: string) =>
    ((await herald.console.ok('GET', `/messages?q=${encodeURIComponent(title)}`)).items as any[])
      .filter((m) => m.title === title)
      .map((m) => m.content as string);

  /**
   * The hosted messages with this title once they are there: V2 (and V1 async) store them in
   * the background after answering, so a loaded machine may lag the answer.
   */
  const eventuallyTitled = (title: string, expected: string[]) =>
    vi.waitFor(
      async () => expect((await messagesTitled(title)).sort()).toEqual([...expected].sort()),
      { timeout: 10_000, interval: 50 },
    );

  /**
   * A template of this text, each {{key}} in it a placeholder, sending to the hosted channel
   * with a public link, so that answers carry hostMessageUrl for the CLI to print.
   */
  const template = (text: string) => {
    const keys = [...new Set([...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]))];
    const placeholders = keys.map((key) => ({ key, label: key }));
    return herald
      .createTemplate({ text, placeholders }, [
        { channelId: hostedId, contentType: 'text', publicLink: true },
      ])
      .then((t) => t.token);
  };

  it('a template token goes through V2, -p filling its placeholders', async () => {
    const token = await template('{{host}} disk at {{pct}}%');
    const run = await send([
      '--url',
      herald.url,
      '--token',
      token,
      '--title',
      'cli v2',
      '-p',
      'host=web-3',
      '-p',
      'pct=98',
    ]);
    expect(run.code, run.stderr).toBe(0);
    // The hosted instance's share link on the second line.
    expect(run.stdout).toMatch(
      /^accepted: queued to 1 instance\nhttp:\/\/127\.0\.0\.1:\d+\/preview\/\S+\n$/,
    );
    await eventuallyTitled('cli v2', ['web-3 disk at 98%']);
  });

  it('a task token goes through V1 with --text', async () => {
    const { token } = await herald.createTask('cli-task', textInstances([hostedId]));
    const run = await send([
      '--url',
      herald.url,
      '--token',
      token,
      '--title',
      'cli v1',
      '--text',
      'ok',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^accepted: sent \(send \d+\)\n/);
    expect(await messagesTitled('cli v1')).toEqual(['ok']);
  });

  it('reads the text from stdin: V1 sends it, V2 fills {{text}} with it', async () => {
    const { token: taskToken } = await herald.createTask('cli-stdin', textInstances([hostedId]));
    const v1 = await send(['--url', herald.url, '--token', taskToken, '--title', 'cli stdin v1'], {
      stdin: 'line one\nline two\n',
    });
    expect(v1.code, v1.stderr).toBe(0);
    expect(await messagesTitled('cli stdin v1')).toEqual(['line one\nline two']);

    const token = await template('build log:\n{{text}}');
    const v2 = await send(
      ['--url', herald.url, '--token', token, '--title', 'cli stdin v2', '--text', '-'],
      { stdin: 'make: *** [all] Error 2\n' },
    );
    expect(v2.code, v2.stderr).toBe(0);
    await eventuallyTitled('cli stdin v2', ['build log:\nmake: *** [all] Error 2']);
  });

  describe('--text with a template that has no {{text}} (the README’s lines with one token)', () => {
    const WARNING_PREFIX = 'herald send: warning: template "';

    it('the text is the message, in place of the template’s content, with a warning', async () => {
      const token = await template('Disk {{host}} at {{pct}}%');
      const run = await send([
        ...['--url', herald.url, '--token', token],
        ...['--title', 'cli text as content', '--text', 'nightly backup finished'],
      ]);
      expect(run.code, run.stderr).toBe(0);
      await eventuallyTitled('cli text as content', ['nightly backup finished']);
      expect(run.stderr).toMatch(
        /^herald send: warning: template "template-\d+" has no \{\{text\}\} placeholder, so the text was sent as the message's content in place of the template's; put \{\{text\}\} in the template where the text belongs\n$/,
      );

      // Piped in, as `make 2>&1 | herald send --title build`: the same.
      const piped = await send(
        ['--url', herald.url, '--token', token, '--title', 'cli piped as content'],
        { stdin: 'make: *** [all] Error 2\n' },
      );
      expect(piped.code, piped.stderr).toBe(0);
      expect(piped.stderr.startsWith(WARNING_PREFIX)).toBe(true);
      await eventuallyTitled('cli piped as content', ['make: *** [all] Error 2']);
    });

    it('a template with no content of its own sends the text, with nothing to warn about', async () => {
      const { token } = await herald.createTemplate({ text: '', html: '', markdown: '' }, [
        { channelId: hostedId, contentType: 'text' },
      ]);
      const run = await send([
        ...['--url', herald.url, '--token', token, '--title', 'cli empty template'],
        ...['--text', 'the whole message'],
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
      await eventuallyTitled('cli empty template', ['the whole message']);
    });

    it('with -p values the template’s content is sent and the text left out, with a warning', async () => {
      const token = await template('Disk {{host}} at {{pct}}%');
      const run = await send([
        ...['--url', herald.url, '--token', token, '--title', 'cli text not used'],
        ...['-p', 'host=web-3', '-p', 'pct=98', '--text', '/var at 98%', '--json'],
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).data.warnings).toEqual([
        expect.stringMatching(
          /has no \{\{text\}\} placeholder, so the text was not sent: the placeholder values fill the template's content/,
        ),
      ]);
      await eventuallyTitled('cli text not used', ['Disk web-3 at 98%']);

      // The same values without a text: nothing to warn about.
      const quiet = await send([
        ...['--url', herald.url, '--token', token, '--title', 'cli values only'],
        ...['-p', 'host=web-4', '-p', 'pct=97'],
      ]);
      expect(quiet.code, quiet.stderr).toBe(0);
      expect(quiet.stderr).toBe('');
      await eventuallyTitled('cli values only', ['Disk web-4 at 97%']);
    });

    it('a template with {{text}} still has it filled, and -p text=… still wins', async () => {
      const token = await template('[{{text}}]');
      const run = await send([
        ...['--url', herald.url, '--token', token, '--title', 'cli text fills'],
        ...['--text', 'filled'],
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
      await eventuallyTitled('cli text fills', ['[filled]']);

      const wins = await send([
        ...['--url', herald.url, '--token', token, '--title', 'cli p text wins'],
        ...['--text', 'ignored', '-p', 'text=from -p'],
      ]);
      expect(wins.code, wins.stderr).toBe(0);
      await eventuallyTitled('cli p text wins', ['[from -p]']);
    });

    it('the send log keeps the warning, with its kind for the console’s words', async () => {
      const token = await template('Disk {{host}}');
      const run = await send([
        ...['--url', herald.url, '--token', token, '--title', 'cli logged warning'],
        ...['--text', 'logged', '--json'],
      ]);
      expect(run.code, run.stderr).toBe(0);
      const logs = await herald.console.ok('GET', '/logs?q=cli%20logged%20warning');
      const detail = await herald.console.ok('GET', `/logs/${logs.items[0].id}`);
      expect(detail.warnings).toEqual([
        expect.objectContaining({ kind: 'textAsContent', key: 'text' }),
      ]);
    });
  });

  it('exits 1 with Herald’s msg when Herald refuses', async () => {
    const bad = await send(['--url', herald.url, '--token', 'A'.repeat(56), '--title', 'x']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('token: not a Herald token');

    // A template without instances: V2's own contract msg comes through.
    const { token } = await herald.createTemplate({ text: 'x' }, []);
    const refused = await send(['--url', herald.url, '--token', token, '--title', 'x']);
    expect(refused).toMatchObject({ code: 1, stderr: 'herald send: 模板没有配置发送实例\n' });
  });

  it('--json prints Herald’s answer, accepted or refused', async () => {
    const token = await template('json {{x}}');
    const ok = await send(['--url', herald.url, '--token', token, '--title', 'cli json', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({
      code: 200,
      msg: 'success',
      data: {
        token,
        count: 1,
        hostMessageUrl: expect.stringMatching(/\/preview\//),
        warnings: [
          'placeholder "x" has no value and no default, so {{x}} stays in the message as written',
        ],
      },
    });
    // Without --json the warning goes to stderr, and the send is still accepted.
    const plain = await send(['--url', herald.url, '--token', token, '--title', 'cli plain']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^accepted: queued to 1 instance/);
    expect(plain.stderr).toBe(
      'herald send: warning: placeholder "x" has no value and no default, so {{x}} stays in the message as written\n',
    );

    const bad = await send(['--url', herald.url, '--token', 'nope', '--title', 'x', '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ code: 400, data: null });
  });

  it('exits 2 on usage errors, before sending anything', async () => {
    const { token: taskToken } = await herald.createTask('cli-usage', textInstances([hostedId]));
    const cases: Array<[string[], string]> = [
      [['--token', 't'], '--title is required'],
      [['--title', 'x'], '--token is required'],
      [['--token', 't', '--title', 'x', '--bogus'], "Unknown option '--bogus'"],
      [['--token', 't', '--title', 'x', '-p', 'novalue'], '"novalue" is not key=value'],
      [['--token', 't', '--title', 'x', '--priority', '9'], 'is not 1-5'],
      [['--token', 't', '--title', 'x', '--priority', 'loud'], 'min, low, default, high, max'],
      [['--token', 't', '--title', 'x', '--dedup-key', 'k'.repeat(201)], 'must be 1 to 200'],
      [['--token', 't', '--title', 'x', '--dedup-window', '60'], 'give it with --dedup-key'],
      [
        ['--token', 't', '--title', 'x', '--dedup-key', 'k', '--dedup-window', '86401'],
        'from 1 to 86400',
      ],
      [['--token', 't', '--title', 'x', '--url', 'ftp://h'], 'is not an http:// or https://'],
      // Known only once Herald says the token is a task's.
      [
        ['--url', herald.url, '--token', taskToken, '--title', 'x', '-p', 'a=b', '--text', 't'],
        '-p fills a template',
      ],
      [['--url', herald.url, '--token', taskToken, '--title', 'cli no text'], 'sends a text'],
    ];
    for (const [args, message] of cases) {
      const run = await send(args);
      expect([run.code, run.stderr], args.join(' ')).toEqual([2, expect.stringContaining(message)]);
    }
    expect(await messagesTitled('cli no text')).toEqual([]);
  });

  it('exits 3 when nothing listens at the address', async () => {
    const port = await freePort();
    const run = await send(['--url', `http://127.0.0.1:${port}`, '--token', 't', '--title', 'x']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`cannot reach Herald at http://127.0.0.1:${port}`);
  });

  it('takes the address and token from HERALD_URL/HERALD_TOKEN, then the config file; flags win', async () => {
    const token = await template('defaults {{n}}');
    const fromEnv = await send(['--title', 'cli env', '-p', 'n=1'], {
      env: { HERALD_URL: herald.url, HERALD_TOKEN: token },
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);

    mkdirSync(path.join(configHome, 'with-file', 'herald'), { recursive: true });
    writeFileSync(
      path.join(configHome, 'with-file', 'herald', 'cli.json'),
      JSON.stringify({ url: herald.url, token }),
    );
    const fromFile = await send(['--title', 'cli file', '-p', 'n=2'], {
      env: { XDG_CONFIG_HOME: path.join(configHome, 'with-file') },
    });
    expect(fromFile.code, fromFile.stderr).toBe(0);

    // The environment wins over the file, a flag over the environment.
    const closed = `http://127.0.0.1:${await freePort()}`;
    const envOverFile = await send(['--title', 'cli env over file'], {
      env: { XDG_CONFIG_HOME: path.join(configHome, 'with-file'), HERALD_URL: closed },
    });
    expect(envOverFile.code).toBe(3);
    const flagOverEnv = await send(['--url', herald.url, '--title', 'cli flag', '-p', 'n=3'], {
      env: { XDG_CONFIG_HOME: path.join(configHome, 'with-file'), HERALD_URL: closed },
    });
    expect(flagOverEnv.code, flagOverEnv.stderr).toBe(0);

    await eventuallyTitled('cli env', ['defaults 1']);
    await eventuallyTitled('cli file', ['defaults 2']);
    await eventuallyTitled('cli flag', ['defaults 3']);

    writeFileSync(path.join(configHome, 'with-file', 'herald', 'cli.json'), '{"url": ');
    const broken = await send(['--title', 'x'], {
      env: { XDG_CONFIG_HOME: path.join(configHome, 'with-file') },
    });
    expect([broken.code, broken.stderr]).toEqual([
      2,
      expect.stringContaining('cli.json: not JSON'),
    ]);
  });

  it('--idempotency-key: a repeat gets the first answer and sends nothing again', async () => {
    const token = await template('once {{n}}');
    const args = ['--url', herald.url, '--token', token, '--title', 'cli once', '--json'];
    const first = await send([...args, '-p', 'n=1', '--idempotency-key', 'cli-key-1']);
    const again = await send([...args, '-p', 'n=2', '--idempotency-key', 'cli-key-1']);
    expect(first.code, first.stderr).toBe(0);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
    await eventuallyTitled('cli once', ['once 1']);

    const other = await send([...args, '-p', 'n=3', '--idempotency-key', 'cli-key-2']);
    expect(other.code, other.stderr).toBe(0);
    await eventuallyTitled('cli once', ['once 1', 'once 3']);
  });

  /** The send's request as Herald stored it (the console's log detail; the token shortened). */
  const requestOf = async (title: string) => {
    // The plain list, not the search: this file's few sends fit one page.
    const { items } = await herald.console.ok('GET', '/logs?pageSize=100');
    const mine = (items as any[]).filter((s) => s.title === title);
    expect(mine).toHaveLength(1);
    return (await herald.console.ok('GET', `/logs/${mine[0].id}`)).request;
  };

  it('--priority, --dedup-key and --dedup-window go into both APIs’ JSON bodies', async () => {
    const { token: taskToken } = await herald.createTask('cli-extras', textInstances([hostedId]));
    const v1 = await send([
      '--url',
      herald.url,
      '--token',
      taskToken,
      '--title',
      'cli extras v1',
      '--text',
      'disk full',
      '--priority',
      'HIGH',
      '--dedup-key',
      'disk-web-3',
      '--dedup-window',
      '3600',
    ]);
    expect(v1.code, v1.stderr).toBe(0);
    expect(await requestOf('cli extras v1')).toEqual({
      token: expect.stringMatching(/…$/),
      title: 'cli extras v1',
      text: 'disk full',
      priority: 4,
      dedupKey: 'disk-web-3',
      dedupWindow: 3600,
    });

    const token = await template('extras {{n}}');
    const v2 = await send([
      ...['--url', herald.url, '--token', token, '--title', 'cli extras v2', '-p', 'n=1'],
      ...['--priority', '1', '--dedup-key', 'k2'],
    ]);
    expect(v2.code, v2.stderr).toBe(0);
    // No --dedup-window: Herald's default applies, so none is sent.
    expect(await requestOf('cli extras v2')).toEqual({
      token: expect.stringMatching(/…$/),
      title: 'cli extras v2',
      placeholders: { n: '1' },
      priority: 1,
      dedupKey: 'k2',
    });

    // Without the flags the body has none of the fields: each channel keeps its own default.
    const plain = await send([
      '--url',
      herald.url,
      '--token',
      token,
      '--title',
      'cli extras none',
      '-p',
      'n=2',
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(Object.keys(await requestOf('cli extras none')).sort()).toEqual([
      'placeholders',
      'title',
      'token',
    ]);
  });

  it('--digest-key goes into the body, and a collected send says when its digest goes out', async () => {
    const token = await template('digest {{n}}');
    const { items } = await herald.console.ok('GET', '/templates?pageSize=100');
    const id = (items as any[]).find((t) => t.text === 'digest {{n}}').id;
    await herald.console.ok('PUT', `/templates/${id}/digest`, { windowMinutes: 30 });
    const run = await send([
      ...['--url', herald.url, '--token', token, '--title', 'cli digest', '-p', 'n=1'],
      ...['--digest-key', 'nightly'],
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^accepted: collected in a digest that goes out at \d{4}-\d\d-\d\dT[\d:.]+Z\n$/,
    );
    expect(await requestOf('cli digest')).toMatchObject({ digestKey: 'nightly' });
  });

  it('--help shows the options and examples', async () => {
    const run = await send(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Examples:');
    expect(run.stdout).toContain('make 2>&1 | herald send --title build');
    expect(run.stdout).toContain('--priority high');
    expect(run.stdout).toContain('--dedup-window S');
  });
});
