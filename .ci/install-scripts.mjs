#!/usr/bin/env node
// Runs the install scripts `npm ci --ignore-scripts` skipped, as many at a time as there are
// cores. npm runs them one at a time on two cores (its limit is cores − 1), and two of ours
// compile SQLite from source for over a minute each (sqlite3 and better-sqlite3), so CI waited
// for them in turn. The lockfile's `hasInstallScript` says which packages have one, so a new
// native dependency is built here without this file changing. Like `npm ci`, an optional
// package whose script fails is removed (Electron, whose download this network refuses), and
// any other failure fails the install.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

const byName = new Map();
for (const [path, entry] of Object.entries(lock.packages)) {
  if (!entry.hasInstallScript || !existsSync(join(root, path))) continue;
  const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const native = existsSync(join(root, path, 'binding.gyp'));
  const known = byName.get(name) ?? { name, native: false, optional: true, paths: [] };
  known.native ||= native;
  known.optional &&= entry.optional === true;
  known.paths.push({ path, bin: entry.bin ?? {} });
  byName.set(name, known);
}
// The compiles first, so they overlap each other rather than wait behind quick scripts.
const queue = [...byName.values()].sort((a, b) => Number(b.native) - Number(a.native));

function rebuild(pkg) {
  return new Promise((resolve) => {
    const started = Date.now();
    execFile(
      'npm',
      ['rebuild', pkg.name, '--no-audit', '--no-fund'],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const seconds = Math.round((Date.now() - started) / 1000);
        resolve({ pkg, error, output: `${stdout}${stderr}`, seconds });
      },
    );
  });
}

function removeOptional(pkg) {
  for (const { path, bin } of pkg.paths) {
    rmSync(join(root, path), { recursive: true, force: true });
    const binDir = join(
      root,
      path.slice(0, path.lastIndexOf('node_modules/')),
      'node_modules/.bin',
    );
    for (const command of Object.keys(bin)) rmSync(join(binDir, command), { force: true });
  }
}

let failed = false;
async function lane() {
  for (let pkg = queue.shift(); pkg; pkg = queue.shift()) {
    const { error, output, seconds } = await rebuild(pkg);
    if (!error) {
      console.log(`install script: ${pkg.name} (${seconds} s)`);
    } else if (pkg.optional) {
      removeOptional(pkg);
      console.log(`install script: ${pkg.name} failed; it is optional, so it is left out`);
    } else {
      failed = true;
      console.error(`install script: ${pkg.name} failed (${seconds} s)\n${output}`);
    }
  }
}

await Promise.all(Array.from({ length: Math.max(1, availableParallelism()) }, lane));
process.exit(failed ? 1 : 0);
