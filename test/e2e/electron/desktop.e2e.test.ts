/**
 * The desktop app end to end, driven by Playwright's `_electron` against the unpackaged build
 * (the dev electron binary + out/main/index.js; the packaged app's fuses would block
 * Playwright). Needs the Electron binary, which `npm install` downloads from the internet:
 * where it is missing every test is reported as skipped, with the reason printed.
 * On Linux CI run it under a display server, e.g. `xvfb-run -a npx vitest run --project e2e
 * test/e2e/electron`.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DESKTOP_API_KEYS } from '../../../main/preload/api-keys';
import type { TestHooks } from '../../../main/test-hooks';
import { e2eRequired } from '../required';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const ADMIN = { username: 'e2e-admin', password: 'e2e-admin-password' };

/** The Electron binary's path, or why it is not available. */
function findElectron(): { binary: string } | { binary: null; reason: string } {
  try {
    const binary: unknown = createRequire(import.meta.url)('electron');
    if (typeof binary !== 'string')
      return { binary: null, reason: 'the electron module did not give a path' };
    if (!existsSync(binary)) return { binary: null, reason: `no binary at ${binary}` };
    return { binary };
  } catch (err) {
    return {
      binary: null,
      reason: (err instanceof Error ? err.message : String(err)).split('\n')[0]!,
    };
  }
}

const electron = findElectron();
if (electron.binary === null && e2eRequired('electron')) {
  throw new Error(
    `HERALD_E2E_REQUIRED requires the Electron suite but the Electron binary is not installed: ${electron.reason}`,
  );
}
if (electron.binary === null) {
  console.warn(
    `Electron binary not installed: ${electron.reason}. Skipping the desktop e2e suite.`,
  );
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Reads the main process's test hooks (main/test-hooks.ts). */
function readHooks(app: ElectronApplication): Promise<TestHooks | undefined> {
  return app.evaluate(() => (globalThis as unknown as { __heraldTest?: TestHooks }).__heraldTest);
}

describe.skipIf(electron.binary === null)(
  'desktop app (Playwright _electron)',
  // One user journey: each step builds on the one before, so steps keep their order when CI
  // shuffles the suite.
  { shuffle: false },
  () => {
    let app: ElectronApplication;
    let page: Page;
    let userData: string;
    let origin: string;
    const pageErrors: Error[] = [];

    beforeAll(async () => {
      const { ensureMainBundle } = await import('../../helpers/main-bundle');
      const mainFile = await ensureMainBundle();
      userData = mkdtempSync(path.join(tmpdir(), 'herald-electron-'));
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      // A port of its own, through the real settings file, so runs never collide on 8765.
      writeFileSync(path.join(userData, 'config.json'), JSON.stringify({ port }));

      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(process.env))
        if (value !== undefined) env[key] = value;
      delete env.ELECTRON_RUN_AS_NODE;
      Object.assign(env, {
        HERALD_USER_DATA_DIR: userData,
        HERALD_TEST_HOOKS: '1',
        // The server creates this first administrator, whom the window signs in as.
        HERALD_ADMIN_USER: ADMIN.username,
        HERALD_ADMIN_PASSWORD: ADMIN.password,
      });
      app = await _electron.launch({
        executablePath: electron.binary!,
        args: [mainFile],
        cwd: root,
        env,
      });
      page = await app.firstWindow();
      page.on('pageerror', (err) => pageErrors.push(err));
      await expect.poll(async () => (await readHooks(app))?.ready, { timeout: 60_000 }).toBe(true);
    });

    afterAll(async () => {
      if (app && app.process().exitCode === null) await app.close().catch(() => undefined);
      if (userData) rmSync(userData, { recursive: true, force: true });
    });

    it('window shows the console signed in without typing a password', async () => {
      await page.waitForURL(
        (url) => url.origin === origin && !url.pathname.includes('desktop-login'),
      );

      const me = await page.evaluate(async () => {
        const res = await fetch('/api/console/me');
        return {
          status: res.status,
          body: (await res.json()) as { data?: { user?: { username: string } } },
        };
      });

      expect(me.status).toBe(200);
      expect(me.body.data?.user?.username).toBe(ADMIN.username);
      expect(pageErrors).toEqual([]);
    });

    it('window has the preload bridge and no Node', async () => {
      const probe = await page.evaluate(async () => {
        const w = globalThis as unknown as {
          desktop?: Record<string, unknown>;
          require?: unknown;
          process?: unknown;
        };
        const desktop = w.desktop as {
          getAppVersion(): Promise<string>;
          openExternal(u: string): Promise<boolean>;
        };
        return {
          keys: Object.keys(w.desktop ?? {}).sort(),
          version: await desktop.getAppVersion(),
          fileRefused: await desktop.openExternal('file:///etc/passwd'),
          hasRequire: typeof w.require,
          hasProcess: typeof w.process,
        };
      });

      // The preload's own list: the two cannot drift apart (test/unit/main/preload-bridge).
      expect(probe.keys).toEqual([...DESKTOP_API_KEYS].sort());
      expect(probe.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(probe.fileRefused).toBe(false);
      expect(probe.hasRequire).toBe('undefined');
      expect(probe.hasProcess).toBe('undefined');
    });

    it('a V2 message sent to the embedded server raises the unread count and a notification', async () => {
      // Set up a hosted channel and a template from the signed-in window, as a user would.
      const token = await page.evaluate(async () => {
        const call = async (method: string, url: string, body?: unknown) => {
          const res = await fetch(`/api/console${url}`, {
            method,
            headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          const json = (await res.json()) as { code: number; data: { id: number; token: string } };
          if (json.code !== 200) throw new Error(`${method} ${url}: ${JSON.stringify(json)}`);
          return json.data;
        };
        const channel = await call('POST', '/channels', {
          name: 'Desk inbox',
          type: 'hosted',
          config: {},
        });
        const template = await call('POST', '/templates', {
          name: 'Desk alerts',
          text: '{{host}} stopped answering',
          placeholders: [{ key: 'host', label: 'Host' }],
        });
        await call('POST', `/templates/${template.id}/instances`, {
          channelId: channel.id,
          contentType: 'text',
        });
        return (await call('GET', `/templates/${template.id}/token`)).token;
      });

      const res = await fetch(`${origin}/api/v2/message/send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token, title: 'Backup failed', placeholders: { host: 'nas-1' } }),
      });
      expect(await res.json()).toMatchObject({ code: 200, data: { count: 1 } });

      await expect
        .poll(async () => (await readHooks(app))?.notifications.map((n) => n.text), {
          timeout: 20_000,
        })
        .toEqual([{ title: 'Backup failed', body: 'nas-1 stopped answering' }]);
      await expect.poll(async () => (await readHooks(app))?.unread, { timeout: 20_000 }).toBe(1);
      expect((await readHooks(app))?.tray?.tooltip).toBe('Herald: 1 unread message');
    });

    it('quitting runs the ordered shutdown and exits with code 0', async () => {
      const exited = new Promise<number | null>((resolve) =>
        app.process().once('exit', (code) => resolve(code)),
      );

      // Deferred so evaluate() returns before the process starts going away.
      await app.evaluate(({ app: electronApp }) => {
        setTimeout(() => electronApp.quit(), 0);
      });

      await expect(exited).resolves.toBe(0);
      expect(existsSync(path.join(userData, 'data', 'herald.db'))).toBe(true);
    });
  },
);
