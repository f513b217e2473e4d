// @vitest-environment node
// Reads the console's source files; no DOM needed.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../renderer/src');
const API = join(SRC, 'api');
/** Components that may import an api module, each with a comment on the line before saying why. */
const MAX_EXCEPTIONS = 3;

function vueFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return vueFiles(path);
    return entry.name.endsWith('.vue') ? [path] : [];
  });
}

/** The imports (type-only ones too) of a component that resolve into renderer/src/api/. */
function apiImports(file: string): Array<{ line: number; commented: boolean }> {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found: Array<{ line: number; commented: boolean }> = [];
  lines.forEach((text, i) => {
    const spec = /from\s+'([^']+)'/.exec(text)?.[1];
    if (!spec?.startsWith('.')) return;
    const target = resolve(dirname(file), spec);
    if (target !== API && !target.startsWith(`${API}/`)) return;
    found.push({ line: i + 1, commented: /^\s*\/\//.test(lines[i - 1] ?? '') });
  });
  return found;
}

describe('the console reaches data through its stores', () => {
  it(`at most ${MAX_EXCEPTIONS} components import an api module, each saying why on the line before`, () => {
    const importing = vueFiles(SRC)
      .map((file) => ({ file: relative(SRC, file), imports: apiImports(file) }))
      .filter((c) => c.imports.length > 0);

    expect(importing.length).toBeLessThanOrEqual(MAX_EXCEPTIONS);
    const unexplained = importing.flatMap((c) =>
      c.imports.filter((i) => !i.commented).map((i) => `${c.file}:${i.line}`),
    );
    expect(unexplained).toEqual([]);
  });

  it('apiImports() finds imports of api modules (router.ts has two)', () => {
    // Guards the check above against passing because it looks in the wrong place.
    const all = vueFiles(SRC);
    expect(all.length).toBeGreaterThan(30);
    expect(apiImports(join(SRC, 'router.ts'))).toHaveLength(2);
  });
});

describe('the console shows errors one way', () => {
  it('no component raises its own message or message box: lib/feedback.ts and lib/confirm.ts do', () => {
    const own = vueFiles(SRC)
      .filter((file) => /\bElMessage(Box)?\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));

    expect(own).toEqual([]);
  });
});
