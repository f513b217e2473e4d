import type { ModelStatic, Model } from 'sequelize';

import { Channel, Instance, QuietHoursRuleRow, Task, Template } from './models';

let version = 0;
const HOOK_NAME = 'herald-config-version';
const listeners = new Set<() => void>();

/**
 * A counter that moves whenever a channel, task, template, instance or quiet-hours rule is
 * written, so the send path can keep what it looked up (a template and its enabled instances)
 * until the configuration changes, instead of reading it again for every message.
 */
export function configVersion(): number {
  return version;
}

/**
 * Another process changed the configuration (its event came by NOTIFY): what this process
 * looked up is stale. Listeners are not told, so the change does not travel back.
 */
export function invalidateConfigCache(): void {
  version += 1;
}

/** How long after a change announced elsewhere the lookups are dropped once more. */
const CONFIG_SETTLE_MS = 1_000;

/**
 * A change written elsewhere (another process, or the main thread for the delivery thread) was
 * announced as it was written, maybe a moment before its commit: a lookup made in that moment
 * read the old rows, so what was looked up is dropped now and once more after it settled.
 */
export function invalidateConfigCacheSettled(): void {
  invalidateConfigCache();
  setTimeout(invalidateConfigCache, CONFIG_SETTLE_MS).unref();
}

/** Calls `listener` whenever this process writes a channel, task, template or instance. */
export function onConfigChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Hooks the counter onto the configuration's models. Run after every initModels(): Sequelize's
 * Model.init() drops a model's hooks, so a process that opens a second database (a test suite,
 * the delivery thread's own Sequelize) must hook them again. Named, so running it twice on the
 * same models adds each hook once.
 */
export function registerConfigVersionHooks(): void {
  const bump = () => {
    version += 1;
    for (const l of listeners) l();
  };
  const models: ModelStatic<Model>[] = [
    Channel,
    Instance,
    // Quiet-hours rules are read at every attempt (features/quiet-hours), from a cache.
    QuietHoursRuleRow,
    Task,
    Template,
  ] as unknown as ModelStatic<Model>[];
  for (const model of models) {
    for (const hook of [
      'afterCreate',
      'afterBulkCreate',
      'afterUpdate',
      'afterBulkUpdate',
      'afterDestroy',
      'afterBulkDestroy',
      'afterUpsert',
      'afterSave',
    ] as const) {
      model.removeHook(hook, HOOK_NAME);
      model.addHook(hook, HOOK_NAME, bump);
    }
  }
}
