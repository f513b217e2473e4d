import { adapterFor } from '../../../channels/registry';
import { AppError } from '../../../lib/errors';
import { isWayType, MESSAGE_NEST_CHANNEL_KINDS } from './channel-kinds';
import type { ImportRun } from './import-run';
import { recordOf, text, type Row } from './values';

/** Message Nest's channels (`send_ways`), each through the console's ChannelService. */
export async function importChannels(run: ImportRun) {
  for (const row of run.walk('send_ways')) {
    const id = text(row.id);
    const name = text(row.name).trim() || id;
    const existing = run.already('send_ways', id);
    if (existing !== undefined) {
      run.channelIds.set(id, existing);
      run.report.counts.channels.alreadyImported += 1;
      continue;
    }
    const reason = await createChannel(run, id, name, row);
    if (reason) {
      run.channelSkips.set(id, reason);
      run.skip('channels', id, name, reason);
    }
  }
}

/** Creates one channel; returns the reason it cannot, or null. */
async function createChannel(
  run: ImportRun,
  id: string,
  name: string,
  row: Row,
): Promise<string | null> {
  const type = text(row.type);
  if (!isWayType(type)) return `unknown Message Nest channel kind "${type}"`;
  const kind = MESSAGE_NEST_CHANNEL_KINDS[type];
  if ('unsupported' in kind) return `${type}: ${kind.unsupported}`;
  const adapter = adapterFor(run.deps.registry, kind.heraldType);
  if (!adapter) return `${type}: Herald has no ${kind.heraldType} channel kind`;
  const instances = run
    .rows('send_tasks_ins')
    .filter((r) => text(r.way_id) === id)
    .map((r) => recordOf(r.config));
  const mapped = kind.channel(recordOf(row.auth), instances);
  if ('skip' in mapped) return `${type}: ${mapped.skip}`;
  let channel;
  try {
    channel = await run.deps.channels.create(
      {
        name: name.slice(0, 100),
        description: `Imported from Message Nest (${type} ${id})`,
        type: adapter.type,
        config: mapped.config,
        ...run.timestamps(row),
      },
      run.tx,
    );
  } catch (err) {
    // The service refuses settings that do not fit before it writes anything, so the
    // import's transaction goes on.
    if (err instanceof AppError && err.code === 400) {
      return `${type}: its settings do not make a valid Herald ${adapter.label} channel (${err.message})`;
    }
    throw err;
  }
  await run.remember('send_ways', id, 'channels', channel.id);
  run.channelIds.set(id, channel.id);
  run.report.counts.channels.created += 1;
  for (const note of mapped.notes ?? []) run.note(`Channel "${name}" (${id}): ${note}.`);
  return null;
}
