/**
 * electron-builder.yml and what `npm run dist` adds to it, checked with electron-builder 26's
 * own code where it decides (its option parser, config merge and schema, its Linux maintainer
 * script templates): nothing here can download Electron, so the packaging must be right by
 * construction.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { LAUNCHER_MARKER } from '../../../main/cli-install';
import { DEB_CLI_LAUNCHER, DEB_INSTALL_DIR } from '../../../scripts/build-main';
import { electronBuilderArgs, macSigning } from '../../../scripts/dist';
import { ensureMainBundle } from '../../helpers/main-bundle';

const root = path.resolve(import.meta.dirname, '../../..');
const nodeRequire = createRequire(import.meta.url);

interface BuilderConfig {
  productName: string;
  executableName?: string;
  linux: { executableName?: string };
  win?: { executableName?: string };
  mac: {
    identity?: string | null;
    notarize?: boolean;
    hardenedRuntime?: boolean;
    entitlements?: string;
    extendInfo?: Record<string, unknown>;
  };
  deb?: { fpm?: string[] };
  electronFuses: Record<string, boolean>;
}

const readConfig = (): BuilderConfig =>
  load(readFileSync(path.join(root, 'electron-builder.yml'), 'utf8')) as BuilderConfig;

/** electron-builder's own: argv → options (electron-builder/out/builder.js). */
const builderCli = nodeRequire('electron-builder/out/builder.js') as {
  createYargs(): unknown;
  configureBuildCommand(yargs: unknown): { parse(argv: string[]): unknown };
  normalizeOptions(args: unknown): { config?: Record<string, unknown> };
};
/** app-builder-lib's config merge and schema check (out/util/config/config.js). */
const builderConfig = nodeRequire('app-builder-lib/out/util/config/config.js') as {
  doMergeConfigs(configs: unknown[]): BuilderConfig;
  validateConfiguration(config: unknown, logger: unknown): Promise<void>;
};
const { DebugLogger } = nodeRequire('builder-util') as {
  DebugLogger: new (on: boolean) => unknown;
};

/** The configuration electron-builder builds with, given the yml and these command-line args. */
async function effectiveConfig(args: string[]): Promise<BuilderConfig> {
  const options = builderCli.normalizeOptions(
    builderCli.configureBuildCommand(builderCli.createYargs()).parse(args),
  );
  const merged = builderConfig.doMergeConfigs([readConfig(), options.config ?? {}]);
  // Validation also coerces the command line's strings ("false") to the schema's types.
  await builderConfig.validateConfiguration(merged, new DebugLogger(false));
  return merged;
}

describe('electron-builder.yml', () => {
  it('is a configuration electron-builder 26 accepts, as it stands', async () => {
    await expect(
      builderConfig.validateConfiguration(readConfig(), new DebugLogger(false)),
    ).resolves.toBeUndefined();
  });

  it('never names the desktop app’s executable `herald`, which is the command line’s', () => {
    const config = readConfig();
    // Linux puts the executable on PATH (/usr/bin/<executableName>); macOS and Windows file
    // systems ignore case, so no platform may take the name in any case.
    const names = [
      config.executableName,
      config.linux.executableName,
      config.win?.executableName,
    ].filter((name): name is string => name !== undefined);
    expect(config.linux.executableName).toBe('herald-desktop');
    for (const name of names) expect(name.toLowerCase()).not.toBe('herald');
  });

  it('ships /usr/bin/herald in the .deb as the command line, never clashing with the window’s link', () => {
    const config = readConfig();
    expect(config.deb?.fpm).toEqual([`${DEB_CLI_LAUNCHER}=/usr/bin/herald`]);
    // electron-builder's own maintainer scripts, with the values it fills in
    // (app-builder-lib/templates/linux, FpmTarget): they link and unlink /usr/bin/<executable>.
    const fill = (template: string) =>
      readFileSync(
        path.join(root, 'node_modules', 'app-builder-lib', 'templates', 'linux', template),
        'utf8',
      )
        .replace(/\$\{executable\}/g, config.linux.executableName!)
        .replace(/\$\{sanitizedProductName\}/g, config.productName);
    for (const script of [fill('after-install.tpl'), fill('after-remove.tpl')]) {
      expect(script).toContain("'/usr/bin/herald-desktop'");
      expect(script).not.toMatch(/\/usr\/bin\/herald(?![-\w])/);
    }
    expect(fill('after-install.tpl')).toContain(
      `'${DEB_INSTALL_DIR}/${config.linux.executableName}'`,
    );
    // /opt/<sanitizedProductName>, where the launcher looks for the CLI.
    expect(DEB_INSTALL_DIR).toBe(`/opt/${config.productName}`);
  });

  it('asks macOS for the local network with a sentence saying why', () => {
    const sentence = readConfig().mac.extendInfo?.NSLocalNetworkUsageDescription;
    expect(typeof sentence).toBe('string');
    expect(sentence).toMatch(/^Herald .*local network\.$/);
  });

  it('leaves the macOS identity to npm run dist, and keeps what ad-hoc signing with the hardened runtime needs', () => {
    const config = readConfig();
    expect(config.mac).not.toHaveProperty('identity');
    expect(config.mac.hardenedRuntime).toBe(true);
    // Without it, dyld refuses the native modules of an ad-hoc signed app ("different Team IDs").
    expect(readFileSync(path.join(root, config.mac.entitlements!), 'utf8')).toMatch(
      /<key>com\.apple\.security\.cs\.disable-library-validation<\/key>\s*<true\/>/,
    );
  });

  it('keeps cookie encryption off: no keyring or Keychain prompt for one session cookie', () => {
    expect(readConfig().electronFuses.enableCookieEncryption).toBe(false);
  });
});

describe('macOS signing in npm run dist', () => {
  it('macSigning() signs ad hoc and does not notarize without a Developer ID', async () => {
    const { args, note } = macSigning({ APPLE_ID: 'a@b.c' });

    expect(args).toEqual(['--config.mac.identity=-', '--config.mac.notarize=false']);
    expect(note).toContain('signed ad hoc');
    const config = await effectiveConfig(['--mac', ...args]);
    expect(config.mac.identity).toBe('-');
    expect(config.mac.notarize).toBe(false);
  });

  it('macSigning() leaves a Developer ID in CSC_LINK or CSC_NAME to electron-builder, notarizing with APPLE_*', async () => {
    for (const env of [
      { CSC_LINK: '/certs/developer-id.p12' },
      { CSC_NAME: 'Herald Org (ABCDE12345)' },
    ]) {
      const { args, note } = macSigning(env);
      expect(args).toEqual([]);
      expect(note).toContain('not notarized');
      const config = await effectiveConfig(['--mac', ...args]);
      // No identity: electron-builder takes CSC_NAME or the certificate CSC_LINK imports.
      expect(config.mac.identity).toBeUndefined();
      expect(config.mac.notarize).toBeUndefined();
    }
    expect(
      macSigning({
        CSC_LINK: 'x',
        APPLE_API_KEY: 'k.p8',
        APPLE_API_KEY_ID: 'id',
        APPLE_API_ISSUER: 'issuer',
      }).note,
    ).toContain('then notarized');
    // A blank variable is no certificate.
    expect(macSigning({ CSC_LINK: ' ' }).args).toHaveLength(2);
  });

  it('electronBuilderArgs() adds the signing arguments when dist builds for macOS, and only then', () => {
    const input = { args: ['--mac'], stagedDir: '/w/out/app', version: '38.2.0', env: {} };
    expect(
      electronBuilderArgs({ ...input, target: { platform: 'darwin', arch: 'arm64' } }),
    ).toEqual({
      args: [
        '--mac',
        '--config.directories.app=/w/out/app',
        '--config.electronVersion=38.2.0',
        '--config.mac.identity=-',
        '--config.mac.notarize=false',
      ],
      note: macSigning({}).note,
    });
    expect(
      electronBuilderArgs({
        ...input,
        args: ['--linux', 'deb'],
        target: { platform: 'linux', arch: 'x64' },
      }),
    ).toEqual({
      args: [
        '--linux',
        'deb',
        '--config.directories.app=/w/out/app',
        '--config.electronVersion=38.2.0',
      ],
      note: null,
    });
  });
});

describe('the .deb’s /usr/bin/herald', () => {
  let bin: string;
  let work: string;

  beforeAll(async () => {
    await ensureMainBundle();
    work = mkdtempSync(path.join(tmpdir(), 'herald-deb-launcher-'));
    bin = path.join(work, 'bin');
    mkdirSync(bin);
    // A `node` that says what it was asked to run.
    writeFileSync(path.join(bin, 'node'), '#!/bin/sh\necho "node $*"\n');
    chmodSync(path.join(bin, 'node'), 0o755);
  }, 300_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('is executable, marked as Herald’s, and runs the packaged CLI with every argument', () => {
    const launcher = path.join(root, DEB_CLI_LAUNCHER);
    expect(readFileSync(launcher, 'utf8')).toContain(LAUNCHER_MARKER);
    const sh = '/bin/sh';
    const out = execFileSync(launcher, ['send', '--token', 'a b', '--text', 'hi'], {
      encoding: 'utf8',
      env: { PATH: `${bin}:/usr/bin:/bin` },
    });
    expect(out.trim()).toBe(
      `node ${DEB_INSTALL_DIR}/resources/cli/herald.mjs send --token a b --text hi`,
    );
    // Without Node on PATH it says what is missing and exits 127, as a shell does.
    const without = spawnSync(sh, [launcher, '--help'], {
      encoding: 'utf8',
      env: { PATH: '/nonexistent' },
    });
    expect(without.status).toBe(127);
    expect(without.stderr).toContain('Node.js 20 or later must be on PATH');
  });
});
