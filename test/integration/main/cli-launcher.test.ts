import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { installCommandLineTool, nodeCliInstallFs } from '../../../main/cli-install';

const root = path.join(import.meta.dirname, '..', '..', '..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const run = (file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> =>
  new Promise((resolve) => {
    execFile(file, args, { env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

/**
 * The launcher "Install command-line tool" writes, on this machine's real file system and run
 * by the real sh: the CLI bundle the desktop app ships (cli/desktop.ts, built as
 * scripts/build-main.ts builds it), copied to a user-data folder, started through `node`.
 * /usr/local/bin is reported unwritable, so nothing lands outside the temporary home.
 */
describe.skipIf(process.platform === 'win32')('the installed herald launcher', () => {
  let home: string;
  let launcher: string;
  const nodeDir = path.dirname(process.execPath);

  beforeAll(async () => {
    home = mkdtempSync(path.join(tmpdir(), 'herald-cli-home-'));
    const bundledCli = path.join(home, 'resources', 'cli', 'herald.mjs');
    await build({
      absWorkingDir: root,
      entryPoints: [path.join(root, 'cli', 'desktop.ts')],
      outfile: bundledCli,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
    });
    const outcome = await installCommandLineTool({
      platform: process.platform,
      env: { PATH: '/usr/bin:/bin' },
      homeDir: home,
      bundledCli,
      installedCli: path.join(home, 'user data', "it's Herald", 'cli', 'herald.mjs'),
      fs: {
        ...nodeCliInstallFs,
        canWrite: (dir) =>
          dir === '/usr/local/bin'
            ? Promise.reject(Object.assign(new Error('EACCES'), { code: 'EACCES' }))
            : nodeCliInstallFs.canWrite(dir),
      },
      confirmReplace: async () => false,
    });
    expect(outcome).toMatchObject({ kind: 'installed', dir: path.join(home, '.local', 'bin') });
    launcher = path.join(home, '.local', 'bin', 'herald');
  }, 60_000);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('is executable and runs herald send with the node on PATH', async () => {
    expect(statSync(launcher).mode & 0o111).toBe(0o111);
    const help = await run(launcher, ['send', '--help'], { PATH: `${nodeDir}:/usr/bin:/bin` });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: herald send');
    expect(help.stdout).toContain('--dedup-key K');

    // Arguments arrive whole, spaces included: a usage error names the bad value.
    const bad = await run(
      launcher,
      ['send', '--token', 't', '--title', 'a b', '--priority', 'very high'],
      {
        PATH: `${nodeDir}:/usr/bin:/bin`,
      },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--priority: "very high" is not 1-5');

    const other = await run(launcher, ['start'], { PATH: `${nodeDir}:/usr/bin:/bin` });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      'herald start, import-message-nest, migrate-to-postgres, backup and restore',
    );
  });

  it('says Node.js is needed, exit 127, when no node is on PATH', async () => {
    const missing = await run(launcher, ['send', '--help'], { PATH: path.join(home, 'empty') });
    expect(missing.code).toBe(127);
    expect(missing.stderr).toBe(
      'herald: Node.js 20 or later must be on PATH (https://nodejs.org)\n',
    );
  });

  it('a second install updates the launcher in place', async () => {
    const outcome = await installCommandLineTool({
      platform: process.platform,
      env: { PATH: `${path.join(home, '.local', 'bin')}:/usr/bin` },
      homeDir: home,
      bundledCli: path.join(home, 'resources', 'cli', 'herald.mjs'),
      installedCli: path.join(home, 'user data', "it's Herald", 'cli', 'herald.mjs'),
      fs: {
        ...nodeCliInstallFs,
        canWrite: () => Promise.reject(Object.assign(new Error('EACCES'), { code: 'EACCES' })),
      },
      confirmReplace: async () => {
        throw new Error('must not ask about its own launcher');
      },
    });
    expect(outcome).toMatchObject({ kind: 'installed', action: 'updated', onPath: true });
    expect(existsSync(`${launcher}.herald-new`)).toBe(false);
  });
});
