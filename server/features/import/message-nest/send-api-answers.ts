import type { ImportRun } from './import-run';

/**
 * Message Nest answers every send with HTTP 200; scripts written for it may read only the
 * envelope, so an import that brought something over switches Herald to answer the same way.
 * Through the SettingsStore: every Herald process on the database takes it up once the import
 * committed.
 */
export async function answerLikeMessageNest(run: ImportRun, dryRun: boolean) {
  const createdAny = Object.values(run.report.counts).some((c) => c.created > 0);
  if (!createdAny) return;
  const { settings } = run.deps;
  if ((await settings.read(run.tx)).sendApi.httpStatus === 'always200') return;
  await settings.update({ sendApi: { httpStatus: 'always200' } }, run.tx);
  run.note(
    `${dryRun ? 'Would set' : 'Set'} sendApi.httpStatus to "always200": the send APIs answer HTTP 200 with the code in the body, as Message Nest does (change it back in Settings).`,
  );
}
