import type { AnyChannelAdapter } from '../../channels/channel-adapter';
import { adapterFor } from '../../channels/registry';
import { configVersion } from '../../db/config-version';
import { Channel, Instance, Task, Template } from '../../db/models';
import type { HeraldParts } from '../../parts';

/** One enabled instance a send fans out to, with its channel and that channel's adapter. */
export interface DeliveryTarget {
  instance: Instance;
  channel: Channel;
  adapter: AnyChannelAdapter;
}

/** A task's or template's instances: how many it has, and the enabled ones that can send. */
export interface SourceTargets {
  all: number;
  enabled: DeliveryTarget[];
}

/** A task or template (null: it does not exist) and its targets, as read at `version`. */
export interface CachedSource<T> {
  version: number;
  source: T | null;
  targets: SourceTargets;
}

/** What SourceLookup uses of the composed parts. */
export type SourceLookupDeps = Pick<HeraldParts, 'registry'>;

/**
 * Tasks and templates with the targets they send to, kept while the configuration version
 * stands still: a send whose task or template nobody edited reads nothing from the database.
 */
export class SourceLookup {
  private readonly tasks = new Map<number, CachedSource<Task>>();
  private readonly templates = new Map<number, CachedSource<Template>>();

  constructor(private readonly deps: SourceLookupDeps) {}

  task(id: number) {
    return this.lookup(this.tasks, id, () => Task.findByPk(id), { taskId: id });
  }

  template(id: number) {
    return this.lookup(this.templates, id, () => Template.findByPk(id), { templateId: id });
  }

  private async lookup<T>(
    cache: Map<number, CachedSource<T>>,
    id: number,
    load: () => Promise<T | null>,
    where: { taskId: number } | { templateId: number },
  ): Promise<CachedSource<T>> {
    const version = configVersion();
    const hit = cache.get(id);
    if (hit && hit.version === version) return hit;
    const source = await load();
    const entry = {
      version,
      source,
      targets: source ? await this.targets(where) : { all: 0, enabled: [] },
    };
    // Only a lookup that no write overtook is kept.
    if (configVersion() === version) {
      if (cache.size > 1000) cache.clear();
      cache.set(id, entry);
    }
    return entry;
  }

  private async targets(where: { taskId: number } | { templateId: number }) {
    const instances = await Instance.findAll({ where, order: [['id', 'ASC']] });
    const enabledInstances = instances.filter((i) => i.enabled);
    const channels = new Map(
      (await Channel.findAll({ where: { id: enabledInstances.map((i) => i.channelId) } })).map(
        (c) => [c.id, c],
      ),
    );
    const enabled: DeliveryTarget[] = [];
    for (const instance of enabledInstances) {
      const channel = channels.get(instance.channelId);
      const adapter = channel ? adapterFor(this.deps.registry, channel.type) : undefined;
      if (channel && adapter) enabled.push({ instance, channel, adapter });
    }
    return { all: instances.length, enabled };
  }
}
