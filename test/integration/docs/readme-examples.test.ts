import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heraldArgs } from '../../helpers/herald-bin';
import { markedExample, REPO_ROOT, scanDocs } from './doc-example-blocks';

const root = REPO_ROOT;
const scan = scanDocs();

/** The README's block marked `<!-- doc-example: NAME -->` (doc-example-blocks.ts). */
function example(name: string): string {
  const block = markedExample(scan, name);
  if (block.file !== 'README.md') throw new Error(`"${name}" is in ${block.file}, not the README`);
  return block.code;
}

/** What a reader sees in the terminal after `npm start` on a fresh data folder. */
interface Started {
  child: ChildProcess;
  url: string;
  setupCode: string;
}

/** Starts the real headless Herald and reads its URL and setup code from what it prints. */
function startHeadless(dataDir: string): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, HERALD_LOG: 'error' };
  delete env.HERALD_ADMIN_USER;
  delete env.HERALD_ADMIN_PASSWORD;
  const child = spawn(process.execPath, heraldArgs(['--data-dir', dataDir, '--port', '0']), {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`Herald did not start: ${out}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /Herald is running at (\S+)/.exec(out)?.[1];
      const setupCode = /one-time setup code: (\S+)/.exec(out)?.[1];
      if (url && setupCode) {
        clearTimeout(timer);
        resolve({ child, url, setupCode });
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`Herald exited with ${code}: ${out}`)));
  });
}

describe('README examples', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-readme-data-'));
  let herald: Started;

  beforeAll(async () => {
    herald = await startHeadless(dataDir);
  }, 40_000);
  afterAll(async () => {
    herald?.child.kill('SIGTERM');
    if (herald && herald.child.exitCode === null)
      await new Promise((r) => herald.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the walkthrough runs as written against a fresh Herald', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-readme-'));
    // The reader copies the code Herald printed, as the README says.
    const { stdout: out } = await promisify(execFile)(
      'bash',
      // The priority and dedup example runs in the walkthrough's shell, as the README says.
      ['-euo', 'pipefail', '-c', `${example('walkthrough')}\n${example('priority-and-dedup')}`],
      {
        cwd,
        env: { ...process.env, HERALD_URL: herald.url, HERALD_SETUP_CODE: herald.setupCode },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    // A new hosted instance has no public link: the answer hands out none.
    expect(out).toMatch(/"data":\{"token":"[A-Za-z0-9_-]+","count":1\}/);
    expect(out).not.toContain('hostMessageUrl');
    expect(out).toContain('"status":"sent"');
    expect(out).toContain('**web-3** disk at 98%');
    expect(out).toMatch(/"count":1,"deduplicated":false\}/);
    expect(out).toMatch(/"count":0,"deduplicated":true,"firstSendId":\d+\}/);
  });
});
