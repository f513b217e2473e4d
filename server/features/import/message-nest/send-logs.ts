import { Send } from '../../../db/models';
import { SOURCE_SYSTEM, type ImportRun } from './import-run';
import { flag, text } from './values';

/** Message Nest's send logs (`--with-logs`): entries of the send log, without deliveries. */
export async function importSendLogs(run: ImportRun) {
  for (const row of run.walk('send_tasks_logs')) {
    const sourceId = run.rowKey(row);
    if (run.already('send_tasks_logs', sourceId) !== undefined) {
      run.report.counts.logs.alreadyImported += 1;
      continue;
    }
    const ref = text(row.task_id);
    const isTemplate = text(row.type) === 'template';
    const name = text(row.name) || ref;
    const send = await Send.create(
      {
        api: isTemplate ? 'v2' : 'v1',
        taskId: isTemplate ? null : (run.taskIds.get(ref) ?? null),
        templateId: isTemplate ? (run.templateIds.get(ref) ?? null) : null,
        sourceName: name.slice(0, 100),
        title: `[Message Nest] ${name}`,
        text: text(row.log),
        html: null,
        markdown: null,
        url: null,
        request: { importedFrom: SOURCE_SYSTEM, id: text(row.id), callerIp: text(row.caller_ip) },
        status: flag(row.status) ? 'sent' : 'failed',
        deliveryCount: 0,
        credential: null,
        ...run.timestamps(row),
      },
      { transaction: run.tx.transaction, silent: true },
    );
    await run.remember('send_tasks_logs', sourceId, 'sends', send.id);
    run.report.counts.logs.created += 1;
  }
}
