import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the core (stryker.config.mjs): the server's
 * unit tests and the integration tests of the send APIs, the delivery queue and the channels.
 * Browser and Electron suites are left out: they cover the console, not the mutated code.
 */
export default defineConfig({
  test: {
    environment: 'node',
    // HERALD_MUTATION_TESTS narrows the tests with the mutants (globs separated by spaces).
    include: process.env.HERALD_MUTATION_TESTS?.split(/\s+/) ?? [
      'test/unit/server/**/*.test.ts',
      'test/unit/server/channels/**/*.test.ts',
      'test/integration/send/*.test.ts',
      // Legacy credentials, a schedule's origin and the send log's redaction are only met here.
      'test/integration/message-nest/console-import.test.ts',
      'test/integration/schedules/schedules.test.ts',
      'test/integration/console/console-resources.test.ts',
      'test/integration/delivery/delivery-retry.test.ts',
      'test/integration/docs/documented-behaviour.test.ts',
      'test/integration/delivery/write-path.test.ts',
      'test/integration/security/send-api-attacks.test.ts',
      'test/integration/security/bad-input.test.ts',
      // The channels' own integration tests drive each adapter against a local peer on loopback
      // (about 15 s together); most of the builders' request fields are only asserted there.
      'test/integration/channels/{dingtalk,wecom,feishu,slack,discord,telegram,ntfy,gotify,bark,wechat-official}.test.ts',
      'test/integration/channels/{dingtalk,wecom,wechat-official,extra-kinds}-e2e.test.ts',
      'test/integration/channels/{webhook-signing,request-envelope}.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
