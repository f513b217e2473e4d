import type { ContentType } from '../../../channels/channel-adapter';
import { adapterFor } from '../../../channels/registry';
import { Channel, Instance } from '../../../db/models';
import { isWayType, MESSAGE_NEST_CHANNEL_KINDS } from './channel-kinds';
import type { ImportRun } from './import-run';
import { flag, recordOf, text } from './values';

/**
 * Message Nest's instances (`send_tasks_ins`): a task's or template's use of a channel, with
 * its content type and recipient. Runs after the channels, tasks and templates it refers to.
 */
export async function importInstances(run: ImportRun) {
  const { transaction } = run.tx;
  const ways = new Map(run.rows('send_ways').map((w) => [text(w.id), w]));
  for (const row of run.walk('send_tasks_ins')) {
    const id = text(row.id);
    const taskRef = text(row.task_id);
    const templateRef = text(row.template_id);
    const ownerLabel = taskRef ? `task ${taskRef}` : `template ${templateRef}`;
    if (run.already('send_tasks_ins', id) !== undefined) {
      run.report.counts.instances.alreadyImported += 1;
      continue;
    }
    const taskId = taskRef ? run.taskIds.get(taskRef) : undefined;
    const templateId = !taskRef && templateRef ? run.templateIds.get(templateRef) : undefined;
    if (taskId === undefined && templateId === undefined) {
      run.skip(
        'instances',
        id,
        ownerLabel,
        `its ${ownerLabel || 'owner'} no longer exists in Message Nest`,
      );
      continue;
    }
    const wayId = text(row.way_id);
    const channelId = run.channelIds.get(wayId);
    const way = ways.get(wayId);
    if (channelId === undefined) {
      const why = run.channelSkips.get(wayId);
      run.skip(
        'instances',
        id,
        ownerLabel,
        why
          ? `its channel ${wayId} was not imported (${why})`
          : `its channel ${wayId} no longer exists in Message Nest`,
      );
      continue;
    }
    const wayType = way ? text(way.type) : '';
    const kind = isWayType(wayType) ? MESSAGE_NEST_CHANNEL_KINDS[wayType] : undefined;
    const channel = await Channel.findByPk(channelId, { transaction });
    const adapter = channel ? adapterFor(run.deps.registry, channel.type) : undefined;
    if (!channel || !adapter) {
      run.skip('instances', id, ownerLabel, `its channel ${wayId} is not in Herald any more`);
      continue;
    }
    const config = recordOf(row.config);
    const mapped =
      kind && !('unsupported' in kind) && kind.instance
        ? kind.instance(config, channel.config)
        : {};
    if ('skip' in mapped) {
      run.skip('instances', id, ownerLabel, mapped.skip);
      continue;
    }
    const wanted = text(row.content_type).trim().toLowerCase() as ContentType;
    const contentType: ContentType = adapter.contentTypes.includes(wanted)
      ? wanted
      : adapter.contentTypes.includes('text')
        ? 'text'
        : adapter.contentTypes[0];
    if (wanted && wanted !== contentType) {
      run.note(
        `Instance ${id} of ${ownerLabel}: ${adapter.label} channels take ${adapter.contentTypes.join('/')}, so it sends ${contentType} instead of ${wanted}.`,
      );
    }
    // Message Nest treats any value other than 1 as paused.
    const enabled = row.enable === undefined || row.enable === null ? true : flag(row.enable);
    const instance = await Instance.create(
      {
        taskId: taskId ?? null,
        templateId: taskId === undefined ? (templateId ?? null) : null,
        channelId,
        contentType,
        enabled,
        recipient: mapped.recipient ?? '',
        dynamicRecipients: mapped.dynamicRecipients ?? false,
        templateCode: mapped.templateCode ?? null,
        publicLink: mapped.publicLink ?? false,
        ...run.timestamps(row),
      },
      { transaction, silent: true },
    );
    await run.remember('send_tasks_ins', id, 'instances', instance.id);
    run.report.counts.instances.created += 1;
    for (const note of mapped.notes ?? []) run.note(`Instance ${id} of ${ownerLabel}: ${note}.`);
  }
}
