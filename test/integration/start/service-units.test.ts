import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { parseHeadlessOptions } from '../../../server/cli';
import { HERALD_BIN } from '../../helpers/herald-bin';
import { freePort } from '../../helpers/herald-process';
import { createTestDatabase, dropTestDatabase, onPostgres } from '../../helpers/test-database';

/**
 * Issue 42 §1: the systemd units in deploy/systemd are the ones docs/running-for-a-team.md
 * shows, and the command each runs starts Herald and stops it the way systemd would. The test
 * plays systemd's part for what it can without being PID 1: it expands the specifiers, copies
 * LoadCredential= files into a credentials folder (%d), builds the environment from
 * Environment= and EnvironmentFile=, runs ExecStart= as written (the install paths mapped onto
 * this checkout and temporary folders), and stops it with KillSignal= within TimeoutStopSec=.
 * User=, Group= and the sandboxing directives need systemd itself; `systemd-analyze verify`
 * checks them where it is installed.
 */

const root = join(import.meta.dirname, '..', '..', '..');
const unitsDir = join(root, 'deploy', 'systemd');
const UNITS = ['herald.service', 'herald@.service'] as const;

/** The template's ExecStart before issue 42: the server refused `--headless`, in a loop. */
const OLD_TEMPLATE_EXEC_START =
  '/usr/bin/node /opt/herald/out/server/cli.js --headless --port 880%i --data-dir /var/lib/herald/%i';

type Section = Array<[key: string, value: string]>;

/** A unit file's sections and their assignments, in order (a key may repeat). */
function parseUnit(text: string): Map<string, Section> {
  const sections = new Map<string, Section>();
  let current: Section | undefined;
  // A line ending in a backslash continues on the next one.
  for (const raw of text.replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = [];
      sections.set(header[1], current);
      continue;
    }
    const eq = line.indexOf('=');
    if (!current || eq < 0) throw new Error(`not a unit file line: ${line}`);
    current.push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  }
  return sections;
}

function readUnit(name: string): Map<string, Section> {
  return parseUnit(readFileSync(join(unitsDir, name), 'utf8'));
}

function values(unit: Map<string, Section>, key: string): string[] {
  return (unit.get('Service') ?? []).filter(([k]) => k === key).map(([, v]) => v);
}

function single(unit: Map<string, Section>, key: string): string {
  const found = values(unit, key);
  expect(found, key).toHaveLength(1);
  return found[0];
}

/** Splits a command line or an Environment= value into words, as systemd does (quotes, `\`). */
function splitWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (quote) {
      if (c === quote) quote = undefined;
      else word = (word ?? '') + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) throw new Error(`unterminated quote in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** Expands the specifiers the units use; any other fails, so the test learns each new one. */
function expandSpecifiers(text: string, specifiers: Record<string, string>): string {
  return text.replace(/%(.)/g, (_, letter: string) => {
    if (letter === '%') return '%';
    const value = specifiers[letter];
    if (value === undefined) throw new Error(`specifier %${letter} is not expanded by this test`);
    return value;
  });
}

/** The command's words after the bundle's path: what the `herald` bin parses. */
function heraldArguments(execStart: string): string[] {
  const words = splitWords(execStart);
  const script = words.findIndex((w) => w.endsWith('/out/server/cli.js'));
  if (script < 0) throw new Error(`ExecStart does not run out/server/cli.js: ${execStart}`);
  return words.slice(script + 1);
}

/**
 * Parses the arguments as `herald` does: the bin (server/bin.ts) runs the headless start for
 * `start` or an option, and parseHeadlessOptions refuses any option it does not know.
 */
function parseAsHerald(args: string[]): ReturnType<typeof parseHeadlessOptions> {
  const [first, ...rest] = args;
  if (first !== undefined && first !== 'start' && !first.startsWith('-'))
    throw new Error(`"${first}" is not the headless start`);
  return parseHeadlessOptions(first === 'start' ? rest : args, {});
}

/** TimeoutStopSec= in milliseconds (`30`, `30s`, `1min 30s`). */
function seconds(value: string): number {
  let ms = 0;
  for (const [, n, unit] of value.matchAll(/(\d+)\s*(min|s|ms)?/g)) {
    ms += Number(n) * (unit === 'min' ? 60_000 : unit === 'ms' ? 1 : 1000);
  }
  return ms;
}

describe('the systemd units in deploy/systemd', () => {
  it('are the units docs/running-for-a-team.md shows, byte for byte', () => {
    const doc = readFileSync(join(root, 'docs', 'running-for-a-team.md'), 'utf8');
    for (const name of UNITS) {
      const marker = `<!-- unit-file: deploy/systemd/${name} -->`;
      const at = doc.indexOf(marker);
      expect(at, `${marker} in the doc`).toBeGreaterThanOrEqual(0);
      const block = /```ini\n([\s\S]*?)```/.exec(doc.slice(at));
      expect(block?.[1]).toBe(readFileSync(join(unitsDir, name), 'utf8'));
    }
    // No other unit in the doc can drift from these files.
    expect(doc.match(/```ini\n/g)).toHaveLength(UNITS.length);
    expect(doc).not.toContain('--headless');
  });

  it('run options the `herald` command accepts, which the old template unit did not', () => {
    for (const name of UNITS) {
      const execStart = expandSpecifiers(single(readUnit(name), 'ExecStart'), {
        i: '8801',
        d: '/run/credentials/herald.service',
      });
      expect(() => parseAsHerald(heraldArguments(execStart)), name).not.toThrow();
    }
    // The same check on the unit the doc showed before: the server refused it at every start.
    const old = expandSpecifiers(OLD_TEMPLATE_EXEC_START, { i: '1' });
    expect(() => parseAsHerald(heraldArguments(old))).toThrow(/Unknown option '--headless'/);
  });

  it('stop Herald with SIGTERM and give it longer than its own 15 s forced exit', () => {
    for (const name of UNITS) {
      const unit = readUnit(name);
      expect(single(unit, 'KillSignal')).toBe('SIGTERM');
      expect(seconds(single(unit, 'TimeoutStopSec'))).toBeGreaterThan(15_000);
      expect(single(unit, 'Restart')).toBe('on-failure');
      expect(single(unit, 'User')).toBe('herald');
      expect(values(unit, 'Environment')).toContain('NODE_ENV=production');
      expect(single(unit, 'ProtectSystem')).toBe('strict');
      expect(single(unit, 'NoNewPrivileges')).toBe('yes');
      // The data folder is the one path the sandbox leaves writable, so it must be the one used.
      const dataDir = parseAsHerald(
        heraldArguments(expandSpecifiers(single(unit, 'ExecStart'), { i: '8801', d: '/x' })),
      ).dataDir;
      const writable = single(unit, 'ReadWritePaths');
      expect(dataDir === writable || dataDir.startsWith(`${writable}/`), name).toBe(true);
    }
    // Several processes share one PostgreSQL database: its URL (a password) comes from a file.
    expect(values(readUnit('herald@.service'), 'EnvironmentFile')).toEqual([
      '/etc/herald/herald.env',
    ]);
  });

  const systemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;
  it.skipIf(!systemdAnalyze)(
    'pass `systemd-analyze verify` (skipped where systemd-analyze is not installed)',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'herald-units-verify-'));
      try {
        for (const name of UNITS) {
          // verify checks that ExecStart's program exists: this machine's node stands in.
          const text = readFileSync(join(unitsDir, name), 'utf8').replace(
            /^ExecStart=\/usr\/bin\/node /m,
            `ExecStart=${process.execPath} `,
          );
          const file = join(dir, name.replace('@.', '@8801.'));
          writeFileSync(file, text);
          const result = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
          const said = `${result.stdout}${result.stderr}`
            .split('\n')
            .filter((line) => line.includes(file) || line.includes(name.replace('@.', '@8801.')));
          expect({ status: result.status, said }, name).toEqual({ status: 0, said: [] });
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

/** A unit started as systemd would start it, in temporary folders standing in for the real ones. */
interface RunningUnit {
  port: number;
  output(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

interface Machine {
  /** The real paths the units name → the test's. */
  paths: Array<[real: string, test: string]>;
  etc: string;
}

function mapPath(machine: Machine, value: string): string {
  for (const [real, test] of machine.paths) {
    if (value === real) return test;
    if (value.startsWith(`${real}/`)) return test + value.slice(real.length);
  }
  return value;
}

/** KEY=VALUE lines of an environment file; comments and blank lines skipped. */
function readEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const eq = trimmed.indexOf('=');
    env[trimmed.slice(0, eq)] = trimmed.slice(eq + 1);
  }
  return env;
}

/**
 * Starts `unitName` (a template when `instance` is given): the unit's ExecStart with its
 * specifiers expanded and the install paths mapped, in its WorkingDirectory, with only the
 * environment systemd would give it.
 */
async function startUnit(
  machine: Machine,
  unitName: string,
  options: { instance?: string; port?: number },
): Promise<RunningUnit> {
  const unit = readUnit(unitName);
  const credentials = mkdtempSync(join(tmpdir(), 'herald-unit-credentials-'));
  const specifiers = { i: options.instance ?? '', I: options.instance ?? '', d: credentials };
  const expand = (value: string) => mapPath(machine, expandSpecifiers(value, specifiers));

  for (const credential of values(unit, 'LoadCredential')) {
    const [id, source] = expandSpecifiers(credential, specifiers).split(':');
    copyFileSync(mapPath(machine, source), join(credentials, id));
  }
  let env: Record<string, string> = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: mapPath(machine, '/var/lib/herald'),
    USER: 'herald',
    CREDENTIALS_DIRECTORY: credentials,
  };
  for (const line of values(unit, 'Environment')) {
    for (const word of splitWords(line)) {
      const eq = word.indexOf('=');
      env[word.slice(0, eq)] = mapPath(machine, expandSpecifiers(word.slice(eq + 1), specifiers));
    }
  }
  // Read after Environment= and over it, as systemd does; `-` marks a file that may be absent.
  for (const line of values(unit, 'EnvironmentFile')) {
    const optional = line.startsWith('-');
    const file = expand(optional ? line.slice(1) : line);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if (optional) continue;
      throw err;
    }
    env = { ...env, ...readEnvironmentFile(text) };
  }

  const words = splitWords(single(unit, 'ExecStart')).map(expand);
  // The port the unit names is replaced by a free one; a template's port is its instance.
  const portAt = words.indexOf('--port') + 1;
  expect(portAt, '--port in ExecStart').toBeGreaterThan(0);
  if (options.port !== undefined) words[portAt] = String(options.port);
  const port = Number(words[portAt]);
  // The bundle the unit runs is the one this run built (global setup).
  expect(words[1]).toBe(HERALD_BIN);

  const child = spawn(words[0], words.slice(1), {
    cwd: expand(single(unit, 'WorkingDirectory')),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      rmSync(credentials, { recursive: true, force: true });
      resolve({ code, signal });
    }),
  );
  return { port, output: () => out, exit, kill: (signal) => child.kill(signal) };
}

/** Waits for /healthz and /readyz to answer 200, or for the process to end (a failed start). */
async function waitUntilReady(running: RunningUnit): Promise<void> {
  let ended = false;
  void running.exit.then(() => (ended = true));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (ended)
      throw new Error(`the unit's Herald exited before it was ready:\n${running.output()}`);
    if (Date.now() > deadline) throw new Error(`not ready after 30 s:\n${running.output()}`);
    try {
      const health = await fetch(`http://127.0.0.1:${running.port}/healthz`);
      const ready = await fetch(`http://127.0.0.1:${running.port}/readyz`);
      if (health.status === 200 && ready.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sends the unit's KillSignal and checks Herald exits 0 before systemd would SIGKILL it. */
async function stopAsSystemd(unitName: string, running: RunningUnit): Promise<void> {
  const unit = readUnit(unitName);
  const timeout = seconds(single(unit, 'TimeoutStopSec'));
  const started = Date.now();
  running.kill(single(unit, 'KillSignal') as NodeJS.Signals);
  const result = await Promise.race([
    running.exit,
    new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeout).unref()),
  ]);
  if (result === 'timeout') running.kill('SIGKILL');
  expect(result, running.output()).toEqual({ code: 0, signal: null });
  expect(Date.now() - started).toBeLessThan(timeout);
}

describe('the units start Herald and stop it as systemd would', () => {
  let machineRoot: string;
  const stopAfter: RunningUnit[] = [];
  const databases: string[] = [];

  afterEach(async () => {
    for (const running of stopAfter.splice(0)) {
      running.kill('SIGKILL');
      await running.exit;
    }
    for (const name of databases.splice(0)) await dropTestDatabase(name);
    rmSync(machineRoot, { recursive: true, force: true });
  });

  /** The folders of a machine set up as the doc says: the key in /etc/herald, an empty data folder. */
  function setUpMachine(): Machine {
    machineRoot = mkdtempSync(join(tmpdir(), 'herald-unit-machine-'));
    const etc = join(machineRoot, 'etc-herald');
    const data = join(machineRoot, 'var-lib-herald');
    mkdirSync(etc, { mode: 0o700 });
    mkdirSync(data, { mode: 0o700 });
    // `openssl rand -base64 32 > /etc/herald/secret.key`
    writeFileSync(join(etc, 'secret.key'), `${randomBytes(32).toString('base64')}\n`, {
      mode: 0o600,
    });
    return {
      etc,
      paths: [
        ['/usr/bin/node', process.execPath],
        ['/opt/herald', root],
        ['/var/lib/herald', data],
        ['/var/log/herald', join(machineRoot, 'var-log-herald')],
        ['/etc/herald', etc],
      ],
    };
  }

  it('herald.service: its ExecStart answers /healthz and /readyz, and SIGTERM ends it with 0', async () => {
    const machine = setUpMachine();
    // /etc/herald/herald.env is optional in this unit (`-`): a fresh install has none.
    if (onPostgres()) {
      const database = await createTestDatabase();
      databases.push(database.name);
      writeFileSync(join(machine.etc, 'herald.env'), `HERALD_DATABASE_URL=${database.url}\n`);
    }
    const running = await startUnit(machine, 'herald.service', { port: await freePort() });
    stopAfter.push(running);
    await waitUntilReady(running);
    expect(running.output()).toContain(`Herald is running at http://127.0.0.1:${running.port}`);
    await stopAsSystemd('herald.service', running);
  }, 90_000);

  it('herald@.service: two instances, each on the port its name gives, run side by side and stop with 0', async () => {
    const machine = setUpMachine();
    // The template requires its environment file: on PostgreSQL it names the shared database.
    let envFile = '# HERALD_DATABASE_URL=postgres://herald:PASSWORD@db.internal:5432/herald\n';
    if (onPostgres()) {
      const database = await createTestDatabase();
      databases.push(database.name);
      envFile = `HERALD_DATABASE_URL=${database.url}\n`;
    }
    writeFileSync(join(machine.etc, 'herald.env'), envFile, { mode: 0o600 });

    const ports = [await freePort(), await freePort()];
    const instances: RunningUnit[] = [];
    // One after the other: on PostgreSQL the first creates the schema the second finds.
    for (const port of ports) {
      const running = await startUnit(machine, 'herald@.service', { instance: String(port) });
      stopAfter.push(running);
      expect(running.port).toBe(port);
      await waitUntilReady(running);
      instances.push(running);
    }
    for (const running of instances) {
      expect(running.output()).toContain(`(data: ${machine.paths[2][1]}/${running.port})`);
    }
    await Promise.all(instances.map((running) => stopAsSystemd('herald@.service', running)));
  }, 120_000);
});
