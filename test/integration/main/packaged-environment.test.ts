import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { runDesktopApp, type DesktopRun } from '../../../main/app-lifecycle';
import type { SettingsStoreLike } from '../../../main/settings';
import { createLogger } from '../../../server/lib/logger';
import { startServer } from '../../../server/index';
import { ADMIN, ConsoleClient, textInstances } from '../../helpers/herald';
import { startHttpPeer } from '../../helpers/recording-peer';
import { createFakeElectron, type FakeElectron } from '../../mocks/electron';
import { onPostgres } from '../../helpers/test-database';

/**
 * The packaged desktop app started with a shell profile's worth of Herald variables, against
 * the real server (real SQLite, real HTTP): the worker files they name are never loaded, and the
 * database and key stay the app's own unless config.json opts in. The server reads the real
 * process environment, so this runs with it (saved and put back around each test).
 *
 * The desktop app runs on SQLite in its own folder: the PostgreSQL pass skips this file.
 */
describe.skipIf(onPostgres())(
  'the packaged desktop app and the environment it is started in',
  () => {
    let temp: string;
    let electron: FakeElectron;
    let saved: NodeJS.ProcessEnv;
    let run: DesktopRun | null;

    beforeEach(() => {
      temp = mkdtempSync(path.join(tmpdir(), 'herald-packaged-env-'));
      electron = createFakeElectron(temp);
      (electron.app as { isPackaged: boolean }).isPackaged = true;
      saved = { ...process.env };
      run = null;
    });
    afterEach(async () => {
      if (run && electron.exits.length === 0) {
        electron.appEvents.emit('before-quit', { preventDefault: () => undefined });
        await vi.waitFor(() => expect(electron.exits).toHaveLength(1), { timeout: 30_000 });
      }
      run?.stopLogging();
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
      rmSync(temp, { recursive: true, force: true });
    });

    function start(settings: Record<string, unknown> = {}): DesktopRun {
      const store: SettingsStoreLike = { store: { port: 0, ...settings }, set: () => undefined };
      run = runDesktopApp({
        electron,
        process: {
          platform: 'linux',
          env: process.env,
          argv: ['/opt/Herald/herald-desktop'],
          execPath: '/opt/Herald/herald-desktop',
          on: () => undefined,
        },
        loadServer: async () => startServer,
        openSettingsStore: () => store,
        mainDir: path.join(temp, 'out', 'main'),
        version: '1.0.0-test',
        log: createLogger('desktop'),
        detectTray: async () => true,
      });
      return run;
    }

    it('never loads the worker files the environment names, nor moves its database or key', async () => {
      const marker = path.join(temp, 'evil-ran');
      const evil = path.join(temp, 'evil.mjs');
      writeFileSync(
        evil,
        `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'loaded');\n`,
      );
      Object.assign(process.env, {
        HERALD_WRITE_WORKER_FILE: evil,
        HERALD_WRITE_WORKER: 'on',
        HERALD_DELIVERY_WORKER_FILE: evil,
        HERALD_DELIVERY_THREAD: 'on',
        HERALD_BACKUP_WORKER_FILE: evil,
        // Nothing listens there: a server that obeyed it could not start.
        HERALD_DATABASE_URL: 'postgres://herald@127.0.0.1:9/herald',
        HERALD_SECRET_KEY: 'a key meant for another Herald',
        HERALD_ADMIN_USER: ADMIN.username,
        HERALD_ADMIN_PASSWORD: ADMIN.password,
      });
      const peer = await startHttpPeer();
      try {
        const { paths, started } = start();
        await started;
        expect(electron.errorBoxes).toEqual([]);
        expect(electron.exits).toEqual([]);

        // Writes and a delivery: where the worker threads would start.
        const url = new URL(electron.windows[0]!.loaded[0]!).origin;
        const client = new ConsoleClient(url);
        await client.ok('POST', '/login', ADMIN);
        const channel = await client.ok('POST', '/channels', {
          name: 'env-hook',
          type: 'webhook',
          config: { url: `${peer.url}/env` },
        });
        const { token } = await client.createTemplate(
          { name: 'env', text: 'hello' },
          textInstances([channel.id]),
        );
        const sent = await fetch(`${url}/api/v2/message/send`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ token, title: 't' }),
        });
        expect(((await sent.json()) as { code: number }).code).toBe(200);
        await peer.waitForRequests(1, 20_000);

        expect(existsSync(marker)).toBe(false);
        // SQLite in the app's own folder, sealed with a key of its own.
        expect(existsSync(path.join(paths.dataDir, 'herald.db'))).toBe(true);
        expect(existsSync(path.join(paths.dataDir, 'secret.key'))).toBe(true);
        for (const name of [
          'HERALD_WRITE_WORKER_FILE',
          'HERALD_DATABASE_URL',
          'HERALD_SECRET_KEY',
        ]) {
          expect([name, process.env[name]]).toEqual([name, undefined]);
        }
      } finally {
        await peer.close();
      }
    }, 60_000);

    it('takes the key from the environment when config.json says databaseFromEnvironment', async () => {
      Object.assign(process.env, { HERALD_SECRET_KEY: 'the team key', HERALD_DATABASE_URL: '' });

      const { paths, started } = start({ databaseFromEnvironment: true });
      await started;

      expect(electron.errorBoxes).toEqual([]);
      expect(existsSync(path.join(paths.dataDir, 'herald.db'))).toBe(true);
      // The key came from the variable: none was made in the folder.
      expect(existsSync(path.join(paths.dataDir, 'secret.key'))).toBe(false);
      expect(process.env.HERALD_SECRET_KEY).toBe('the team key');
    }, 60_000);
  },
);
