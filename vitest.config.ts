import { availableParallelism } from 'node:os';

import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

const shuffle = process.env.HERALD_TEST_SHUFFLE === '1';
// scripts/run-tests.mjs picks the seed (and prints it) so every worker shuffles alike.
const seed = Number(process.env.HERALD_TEST_SEED ?? 1);

/**
 * One runner for every layer: server unit and integration tests (node), console component
 * tests (happy-dom), and browser/Electron end-to-end tests driven by playwright-core.
 */
export default defineConfig({
  test: {
    // CI runs files and tests in a random order (the seed is printed), so order-dependent
    // tests fail there; HERALD_TEST_SEED replays an order.
    sequence: { shuffle: shuffle ? { files: true, tests: true } : false, seed },
    // The suite waits on HTTP peers, child processes and timers more than it computes. Vitest's
    // default, a worker per core but one, ran one file at a time on CI's two cores; three at
    // once took the first pass from 685 to 452 s and the PostgreSQL pass from 450 to 253 s
    // (2026-11-27, docs/testing.md).
    maxWorkers: Math.max(3, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Argon2 at an account's cost is 0.2 s of CPU a hash; the suite sets up and signs in to
    // some 700 times, a fifth of its CPU. Every Herald a test starts (and its children) hashes
    // at the lowest cost instead; password-hash.test.ts checks the account cost without it.
    env: { HERALD_TEST_CHEAP_PASSWORD_HASH: '1' },
    // Projects inherit the options above (timeouts, order): without `extends` they would run
    // with Vitest's 5-second default, which a busy 2-core machine overruns.
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          environment: 'node',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
          pool: 'forks',
          // Files share a worker process and its loaded modules instead of each starting a
          // fresh one: a fresh process per file loaded Sequelize, Express and the server's
          // ~370 modules again, 60 % of the first pass's wall time (docs/testing.md). The files
          // still run in a shuffled order on CI, so one that leans on another's leftovers fails.
          isolate: false,
          globalSetup: ['test/helpers/global-setup.ts'],
          // HERALD_TEST_DATABASE=postgres: drops the file's test databases (test-database.ts).
          setupFiles: ['test/helpers/postgres-setup.ts'],
        },
      },
      {
        extends: true,
        plugins: [vue()],
        test: {
          name: 'renderer',
          environment: 'happy-dom',
          // As the server project: half the project's time was each file's fresh process.
          isolate: false,
          include: ['test/renderer/**/*.test.ts'],
          // Left to Node, Element Plus imports async-validator's CommonJS build as a namespace, so
          // `new AsyncValidator()` throws and every el-form rule passes unseen; through Vite the
          // import gets the default export, as in the console's bundle.
          server: { deps: { inline: ['element-plus'] } },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          pool: 'forks',
          // Browsers and Electron are heavy on a 2-core machine: one file at a time.
          fileParallelism: false,
          testTimeout: 120_000,
        },
      },
    ],
  },
});
