import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The server's layers (docs/architecture.md, .dependency-cruiser.cjs) as tests: the real tree
 * keeps them, its folder graph has no cycle, and the rules do refuse what they are meant to, on
 * a planted tree (a test that only ran over a clean tree could not fail).
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as {
  forbidden: unknown[];
  options: Record<string, unknown>;
};

/** Cruises the server and the contract beside it, as `npm run lint` does. */
async function cruiseServer(
  baseDir: string,
  roots = ['server', 'contract'],
): Promise<ICruiseResult> {
  const { options } = config;
  const result = await cruise(roots, {
    ...options,
    baseDir,
    tsConfig: undefined,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
  } as never);
  return result.output as ICruiseResult;
}

/** The folder a server file belongs to: features' subfolders are folders of their own. */
function folderOf(file: string): string {
  const parts = file.split('/').slice(1);
  if (parts.length === 1) return '(assembly)';
  return parts[0] === 'features' ? `features/${parts[1]}` : parts[0]!;
}

/** Folder → the folders its files import at run time. */
function folderGraph(result: ICruiseResult): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const module of result.modules) {
    if (!module.source.startsWith('server/')) continue;
    for (const dep of module.dependencies) {
      if (!dep.resolved.startsWith('server/')) continue;
      const from = folderOf(module.source);
      const to = folderOf(dep.resolved);
      if (from === to) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  return graph;
}

/** A cycle in the graph, as the folders along it, or null. */
function findCycle(graph: Map<string, Set<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const walk = (node: string, trail: string[]): string[] | null => {
    if (state.get(node) === 'open') return [...trail.slice(trail.indexOf(node)), node];
    if (state.get(node) === 'done') return null;
    state.set(node, 'open');
    for (const next of graph.get(node) ?? []) {
      const cycle = walk(next, [...trail, node]);
      if (cycle) return cycle;
    }
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = walk(node, []);
    if (cycle) return cycle;
  }
  return null;
}

const planted: string[] = [];
afterAll(() => {
  for (const dir of planted) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway tree of server files (path → source), cruised with the project's rules. */
async function cruisePlanted(files: Record<string, string>): Promise<ICruiseResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-layers-'));
  planted.push(dir);
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), source);
  }
  const roots = ['server', 'contract'].filter((root) =>
    Object.keys(files).some((file) => file.startsWith(`${root}/`)),
  );
  return cruiseServer(dir, roots);
}

const ruleNames = (result: ICruiseResult) =>
  result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

describe('server layers', () => {
  // The real tree, cruised once for the tests that read it: it is the slow part of this file.
  let realTree: Promise<ICruiseResult> | undefined;
  const cruiseRealTree = () => (realTree ??= cruiseServer(root));

  it('the server keeps its layers and has no import cycle, file by file', async () => {
    const result = await cruiseRealTree();

    expect(ruleNames(result)).toEqual([]);
    expect(result.summary.totalCruised).toBeGreaterThan(150);
  }, 60_000);

  it('the server’s folder graph has no cycle at run time', async () => {
    const graph = folderGraph(await cruiseRealTree());

    expect(findCycle(graph)).toBeNull();
    // Only the assembly reaches the HTTP layer.
    const intoHttp = [...graph].filter(([from, to]) => to.has('api') && from !== '(assembly)');
    expect(intoHttp.map(([from]) => from)).toEqual([]);
  }, 60_000);

  it('the rules refuse an import from storage into HTTP, and a type-only one passes', async () => {
    const result = await cruisePlanted({
      'server/api/router.ts': 'export const router = 1;\n',
      'server/db/store.ts':
        "import { router } from '../api/router';\nexport const store = router;\n",
      'server/db/typed.ts':
        "import type { router } from '../api/router';\nexport type T = typeof router;\n",
    });

    expect(ruleNames(result)).toEqual(['layer-db: server/db/store.ts → server/api/router.ts']);
  });

  it('the rules refuse two files importing each other, and a folder they do not know', async () => {
    const result = await cruisePlanted({
      'server/queue/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'server/queue/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
      'server/stray/x.ts': "import { a } from '../queue/a';\nexport const x = a;\n",
    });

    // A cycle is reported once, at the first edge dependency-cruiser meets.
    expect(ruleNames(result).sort()).toEqual([
      'no-circular: server/queue/a.ts → server/queue/b.ts',
      'unknown-server-folder: server/stray/x.ts → server/queue/a.ts',
    ]);
  });

  it('the rules let the server import the contract, and refuse a contract that imports the server or Node', async () => {
    const result = await cruisePlanted({
      'contract/shapes.ts': 'export const shape = 1;\n',
      'contract/leaky.ts':
        "import { store } from '../server/db/store';\nimport { readFileSync } from 'node:fs';\nexport const leaky = [store, readFileSync];\n",
      'server/db/store.ts':
        "import { shape } from '../../contract/shapes';\nexport const store = shape;\n",
      'server/api/router.ts':
        "import { shape } from '../../contract/shapes';\nexport const router = shape;\n",
    });

    expect(ruleNames(result).sort()).toEqual([
      'contract-only-zod: contract/leaky.ts → fs',
      'contract-only-zod: contract/leaky.ts → server/db/store.ts',
    ]);
  });

  it('findCycle() finds a cycle between two feature folders that no file-level rule sees', async () => {
    const graph = folderGraph(
      await cruisePlanted({
        'server/features/one/a.ts': "import { c } from '../two/c';\nexport const a = c;\n",
        'server/features/one/b.ts': 'export const b = 1;\n',
        'server/features/two/c.ts': 'export const c = 2;\n',
        'server/features/two/d.ts': "import { b } from '../one/b';\nexport const d = b;\n",
      }),
    );

    expect(findCycle(graph)).toEqual(['features/one', 'features/two', 'features/one']);
  });
});

/** Every .ts file under `dir`, relative to the project root. */
function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(dir, file));
}

/** A file longer than this holds several ideas: split it by what each part is about. */
const MAX_SERVER_FILE_LINES = 450;

describe('file size', () => {
  it(`no server file is longer than ${MAX_SERVER_FILE_LINES} lines`, () => {
    const files = sourceFiles('server');
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((file) => ({
        file,
        lines: readFileSync(path.join(root, file), 'utf8').split('\n').length,
      }))
      .filter(({ lines }) => lines > MAX_SERVER_FILE_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
