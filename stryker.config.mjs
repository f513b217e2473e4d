// Mutation testing of Herald's core (npm run test:mutation; not part of CI: it takes a while).
// The score and what survived are written to docs/testing.md by hand after a run.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  // HERALD_MUTATE narrows a run: globs separated by spaces (brace lists hold commas).
  mutate: process.env.HERALD_MUTATE
    ? process.env.HERALD_MUTATE.split(/\s+/)
    : [
        // The whole folder: the send service's steps live in modules of their own beside it.
        'server/features/sending/*.ts',
        // The send APIs' request schemas, which the send service's input comes through.
        'contract/send/requests.ts',
        'server/domain/placeholders.ts',
        'server/queue/{delivery-transitions,delivery-state,backoff,pacer,waiters}.ts',
        'server/channels/{dingtalk,wecom,feishu,slack,discord,telegram,ntfy,gotify,bark,webhook-body,wechat-official}.ts',
      ],
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  concurrency: Number(process.env.HERALD_MUTATION_CONCURRENCY ?? 2),
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'test-results/mutation/index.html' },
  jsonReporter: { fileName: 'test-results/mutation/report.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
