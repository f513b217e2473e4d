import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

import { IpcChannel, MainToRenderer } from '../../../main/ipc/channels';
import { DESKTOP_API_KEYS } from '../../../main/preload/api-keys';

/**
 * The preload as it ships: bundled the way scripts/build-main.ts bundles it (CommonJS, only
 * `electron` external), then run in a fresh V8 context whose `require('electron')` records what
 * the preload does with contextBridge and ipcRenderer, as a sandboxed preload's would.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface Recorded {
  exposed: Map<string, Record<string, unknown>>;
  invoked: unknown[][];
  sent: unknown[][];
  listeners: Map<string, (event: unknown, ...args: unknown[]) => void>;
}

let code: string;

beforeAll(async () => {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, 'main', 'preload', 'index.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'es2022',
    external: ['electron'],
    write: false,
    logLevel: 'silent',
  });
  code = result.outputFiles[0]!.text;
});

function runPreload(): Recorded {
  const recorded: Recorded = { exposed: new Map(), invoked: [], sent: [], listeners: new Map() };
  const electron = {
    contextBridge: {
      exposeInMainWorld: (key: string, api: Record<string, unknown>) =>
        recorded.exposed.set(key, api),
    },
    ipcRenderer: {
      invoke: async (...args: unknown[]) => {
        recorded.invoked.push(args);
        return `answer to ${String(args[0])}`;
      },
      send: (...args: unknown[]) => void recorded.sent.push(args),
      on: (channel: string, listener: (event: unknown, ...args: unknown[]) => void) =>
        void recorded.listeners.set(channel, listener),
    },
  };
  // The sandboxed preload's world: a CommonJS require that knows `electron`, nothing else.
  const context = vm.createContext({
    require: (name: string) => {
      if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
      return electron;
    },
    module: { exports: {} },
    exports: {},
  });
  vm.runInContext(code, context);
  return recorded;
}

describe('preload bridge', () => {
  it('the preload exposes exactly DESKTOP_API_KEYS as window.desktop, each a function', () => {
    const { exposed } = runPreload();

    expect([...exposed.keys()]).toEqual(['desktop']);
    const api = exposed.get('desktop')!;
    expect(Object.keys(api).sort()).toEqual([...DESKTOP_API_KEYS].sort());
    for (const key of DESKTOP_API_KEYS) expect(typeof api[key]).toBe('function');
  });

  it('each bridge function invokes its own IPC channel with its arguments', async () => {
    const { exposed, invoked } = runPreload();
    const api = exposed.get('desktop') as Record<string, (...args: unknown[]) => Promise<unknown>>;

    await api.getServerInfo!();
    await api.updateSettings!({ port: 9000 });
    await api.setDeliveriesPaused!(true);
    await api.openExternal!('https://example.com/');

    expect(invoked).toEqual([
      [IpcChannel.getServerInfo],
      [IpcChannel.updateSettings, { port: 9000 }],
      [IpcChannel.setDeliveriesPaused, true],
      [IpcChannel.openExternal, 'https://example.com/'],
    ]);
  });

  it('onOpenMessage() says the reader listens and hands the page only valid ids', () => {
    const { exposed, sent, listeners } = runPreload();
    const ids: number[] = [];

    (exposed.get('desktop')!.onOpenMessage as (listener: (id: number) => void) => void)((id) =>
      ids.push(id),
    );
    const forward = listeners.get(MainToRenderer.openMessage)!;
    forward({ sender: 'main' }, 42);
    forward({ sender: 'main' }, -1);
    forward({ sender: 'main' }, '7');

    expect(sent).toEqual([[IpcChannel.readerReady]]);
    expect(ids).toEqual([42]);
  });
});
