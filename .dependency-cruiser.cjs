/**
 * The server's layers (docs/architecture.md), enforced by `npm run lint`. Only run-time imports
 * count: `import type` is erased by the compiler and ties nothing together when Herald runs.
 *
 * From the top: the assembly (server/*.ts: app, composition, index, the CLIs' entry points) →
 * api (HTTP) → features → queue → channels → crypto → db, data-dir (storage) → config →
 * lib, domain, types. A folder imports only folders below it; features import each other
 * without cycles (test/unit/server/architecture.test.ts checks the folder graph).
 *
 * contract/ (the HTTP API's schemas, shared with the console in the browser) sits beside the
 * layers: any server folder may import it, and it imports nothing but zod and itself.
 *
 * cli/ (`herald send`, a client of the HTTP API) sits outside them too: only the assembly
 * (server/bin.ts) imports it (cli/desktop.ts, the desktop app's copy, is an entry of its own),
 * and it imports nothing but Node's built-ins, itself, contract/limits.ts and contract/priority.ts.
 */
/** The layers, top to bottom; a folder may import its own layer's folders and every layer below. */
const LAYERS = [
  ['api'],
  ['features'],
  ['queue'],
  ['channels'],
  ['crypto'],
  ['db'],
  ['data-dir'],
  ['config'],
  ['lib', 'domain', 'types'],
];
/** Folder → the other folders it may import (its own is always allowed). */
const below = Object.fromEntries(
  LAYERS.flatMap((layer, i) =>
    layer.map((folder) => [
      folder,
      [...layer, ...LAYERS.slice(i + 1).flat()].filter((f) => f !== folder),
    ]),
  ),
);

const layerRules = Object.entries(below).map(([layer, allowed]) => ({
  name: `layer-${layer}`,
  comment: `server/${layer} may import only its own folder and ${allowed.join(', ') || 'nothing else'} (docs/architecture.md)`,
  severity: 'error',
  from: { path: `^server/${layer}/` },
  to: {
    path: '^server/',
    pathNot: [`^server/${layer}/`, ...allowed.map((folder) => `^server/${folder}/`)],
  },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'contract-only-zod',
      comment:
        'contract/ is shared by the server and the console (a browser): it imports only zod and itself, no server, renderer or Node module (docs/architecture.md)',
      severity: 'error',
      from: { path: '^contract/' },
      to: { pathNot: ['^contract/', '^node_modules/zod/'] },
    },
    {
      name: 'cli-http-only',
      comment:
        'cli/ (`herald send`) talks to Herald over HTTP only and starts fast: it imports Node built-ins, itself, the send limits and the priority names (contract/limits.ts, contract/priority.ts: no imports of their own), never server/, the rest of contract/ (zod) or a package (docs/architecture.md)',
      severity: 'error',
      from: { path: '^cli/' },
      to: { pathNot: ['^cli/', '^contract/(limits|priority)\\.ts$'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'cli-only-from-bin',
      comment:
        'cli/ is a subcommand of the bin: only server/bin.ts loads it (docs/architecture.md)',
      severity: 'error',
      from: { path: '^(server|contract)/', pathNot: '^server/bin\\.ts$' },
      to: { path: '^cli/' },
    },
    {
      name: 'no-circular',
      comment:
        'No import cycle between server or contract files, however long (two files importing each other included)',
      severity: 'error',
      from: { path: '^(server|contract|cli)/' },
      to: { circular: true },
    },
    {
      name: 'workers-are-entries',
      comment:
        "server/workers/ holds the worker threads' entries: entry points, like the assembly, which nothing imports (lib/worker-file.ts finds them by name; docs/architecture.md, Worker threads)",
      severity: 'error',
      from: { path: '^(server|contract|cli)/', pathNot: '^server/workers/' },
      to: { path: '^server/workers/' },
    },
    {
      name: 'unknown-server-folder',
      comment:
        'Every server folder has a place in the layers: add a new one to .dependency-cruiser.cjs and docs/architecture.md',
      severity: 'error',
      // workers/ sits with the assembly, above the layers: see workers-are-entries.
      from: {
        path: '^server/[^/]+/',
        pathNot: `^server/(${[...Object.keys(below), 'workers'].join('|')})/`,
      },
      to: { path: '^server/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    // Run-time imports only: `import type` does not tie modules together when Herald runs.
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
