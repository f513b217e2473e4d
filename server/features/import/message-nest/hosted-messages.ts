import type { ContentType } from '../../../channels/channel-adapter';
import { markReadForEveryone, startReadsForEveryone } from '../../../db/history/message-reads';
import { HostedMessage } from '../../../db/models';
import type { ImportRun } from './import-run';
import { text } from './values';

/**
 * Message Nest's hosted messages, with their time and share key, arriving as read for every
 * person (read state is per person: db/history/message-reads.ts).
 */
export async function importHostedMessages(run: ImportRun) {
  const hasPreviewKey = 'previewKey' in HostedMessage.getAttributes();
  const readAt = run.deps.now();
  const sequelize = HostedMessage.sequelize!;
  // Watermarks first, from the messages there before the import, so none lands on an import.
  await startReadsForEveryone(sequelize, run.tx.transaction);
  const imported: number[] = [];
  for (const row of run.walk('hosted_message')) {
    const sourceId = run.rowKey(row);
    if (run.already('hosted_message', sourceId) !== undefined) {
      run.report.counts.hostedMessages.alreadyImported += 1;
      continue;
    }
    const type = text(row.type).trim().toLowerCase();
    const format: ContentType = type === 'html' || type === 'markdown' ? type : 'text';
    const previewKey = text(row.unique_key).trim() || null;
    const values = {
      channelId: null,
      deliveryId: null,
      title: text(row.title),
      content: text(row.content),
      format,
      url: null,
      readAt,
      ...run.timestamps(row),
      ...(hasPreviewKey && previewKey ? { previewKey } : {}),
    };
    const message = await HostedMessage.create(values, {
      transaction: run.tx.transaction,
      silent: true,
    });
    imported.push(message.id);
    await run.remember('hosted_message', sourceId, 'hosted_messages', message.id, previewKey);
    run.report.counts.hostedMessages.created += 1;
  }
  // Years of old messages would otherwise all show as unread at once.
  await markReadForEveryone(sequelize, run.tx.transaction, imported);
}
