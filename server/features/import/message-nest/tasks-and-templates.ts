import { Task, Template } from '../../../db/models';
import type { PlaceholderDefinition } from '../../../db/models/template';
import { splitList } from '../../../domain/lists';
import type { ImportRun } from './import-run';
import { flag, jsonOf, text } from './values';

/** Message Nest's tasks (`send_tasks`): V1 senders, keeping their id for the old token. */
export async function importTasks(run: ImportRun) {
  const { transaction } = run.tx;
  for (const row of run.walk('send_tasks')) {
    const id = text(row.id);
    const existing = run.already('send_tasks', id) ?? (await heldByImport(run, Task, id))?.id;
    if (existing !== undefined) {
      run.taskIds.set(id, existing);
      run.report.counts.tasks.alreadyImported += 1;
      continue;
    }
    const task = await Task.create(
      {
        name: await freeName(run, Task, text(row.name), id),
        legacyId: id,
        acceptLegacyToken: false,
        ...run.timestamps(row),
      },
      { transaction, silent: true },
    );
    await run.remember('send_tasks', id, 'tasks', task.id);
    run.taskIds.set(id, task.id);
    run.report.counts.tasks.created += 1;
  }
}

/** Message Nest's templates: V2 senders with their bodies, placeholders and mentions. */
export async function importTemplates(run: ImportRun) {
  const { transaction } = run.tx;
  for (const row of run.walk('template')) {
    const id = text(row.id);
    const existing = run.already('template', id) ?? (await heldByImport(run, Template, id))?.id;
    if (existing !== undefined) {
      run.templateIds.set(id, existing);
      run.report.counts.templates.alreadyImported += 1;
      continue;
    }
    const body = (v: unknown) => (text(v) === '' ? null : text(v));
    const template = await Template.create(
      {
        name: await freeName(run, Template, text(row.name), id),
        description: text(row.description),
        enabled: text(row.status || 'enabled') === 'enabled',
        placeholders: placeholdersOf(row.placeholders),
        text: body(row.text_template),
        html: body(row.html_template),
        markdown: body(row.markdown_template),
        atMobiles: splitList(text(row.at_mobiles)).join(','),
        atUserIds: splitList(text(row.at_user_ids)).join(','),
        atAll: flag(row.is_at_all),
        legacyId: id,
        acceptLegacyToken: false,
        ...run.timestamps(row),
      },
      { transaction, silent: true },
    );
    await run.remember('template', id, 'templates', template.id);
    run.templateIds.set(id, template.id);
    run.report.counts.templates.created += 1;
  }
}

/** Herald names are unique: a name already taken gets the Message Nest id appended. */
async function freeName(
  run: ImportRun,
  model: typeof Task | typeof Template,
  wanted: string,
  id: string,
) {
  const base = (wanted.trim() || id).slice(0, 100);
  const taken = await (model as typeof Task).findOne({
    where: { name: base },
    transaction: run.tx.transaction,
  });
  if (!taken) return base;
  const renamed = `${base.slice(0, 100 - id.length - 3)} (${id})`;
  const what = model === Task ? 'Task' : 'Template';
  run.note(`${what} "${base}" (${id}) was imported as "${renamed}": the name was taken.`);
  return renamed;
}

/** A task or template that already holds this Message Nest id (its import_map row was lost). */
async function heldByImport(run: ImportRun, model: typeof Task | typeof Template, id: string) {
  return (model as typeof Task).findOne({
    where: { legacyId: id },
    transaction: run.tx.transaction,
  });
}

/** Message Nest's placeholders JSON; a definition without a key is dropped, a missing label is the key. */
function placeholdersOf(value: unknown): PlaceholderDefinition[] {
  const parsed = jsonOf(value);
  if (!Array.isArray(parsed)) return [];
  const out: PlaceholderDefinition[] = [];
  for (const item of parsed) {
    if (item === null || typeof item !== 'object') continue;
    const p = item as Record<string, unknown>;
    const key = text(p.key).trim();
    if (!key || out.some((o) => o.key === key)) continue;
    const def = text(p.default);
    out.push({ key, label: text(p.label).trim() || key, ...(def ? { default: def } : {}) });
  }
  return out;
}
