import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

/**
 * One runner for every layer: server unit and integration tests (node), console component
 * tests (happy-dom), and browser/Electron end-to-end tests driven by playwright-core.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      {
        test: {
          name: 'server',
          environment: 'node',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
          pool: 'forks',
        },
      },
      {
        plugins: [vue()],
        test: {
          name: 'renderer',
          environment: 'happy-dom',
          include: ['test/renderer/**/*.test.ts'],
        },
      },
      {
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
