import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../helpers/herald';

const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** The shell block that follows a `<!-- readme-example: NAME -->` marker. */
function example(name: string): string {
  const marker = `<!-- readme-example: ${name} -->`;
  const start = readme.indexOf(marker);
  if (start < 0) throw new Error(`README has no example "${name}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!block) throw new Error(`README example "${name}" has no sh block`);
  return block[1];
}

describe('README examples', () => {
  let herald: TestHerald;

  beforeAll(async () => {
    herald = await startTestHerald({ setup: false });
  });
  afterAll(() => herald.close(true));

  it('the walkthrough runs as written against a fresh Herald', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-readme-'));
    // Asynchronous: the Herald under test runs in this process and must keep answering.
    const { stdout: out } = await promisify(execFile)(
      'bash',
      ['-euo', 'pipefail', '-c', example('walkthrough')],
      {
        cwd,
        env: { ...process.env, HERALD_URL: herald.url },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(out).toMatch(/"data":\{"token":"[A-Za-z0-9_-]+","count":1\}/);
    expect(out).toContain('"status":"sent"');
    expect(out).toContain('**web-3** disk at 98%');
  });
});
