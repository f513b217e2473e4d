import type { AuditChange, AuditEntry } from '@contract';

/**
 * An audit entry as people read it: a sentence with names ("bob linked template Nightly to
 * channel Ops") and its details, in the console's language. The sentence is a dictionary key
 * under `auditSays` and the names that fill it, so the page can set the names apart; every
 * action of AUDIT_ACTIONS has its key in both dictionaries (test/renderer/audit-sentence.test.ts).
 * Names come from the entry alone (its target's name and `names`, both kept when it was
 * written), never from what the things are called today.
 */

type Translate = (key: string, params?: Record<string, unknown>) => string;

export interface AuditSentence {
  /** The dictionary key of the sentence (`auditSays.instanceCreate`). */
  key: string;
  /** The names in it: who, target, source, channel… */
  params: Record<string, string>;
}

export interface AuditDetails {
  /**
   * How the details read: what a create made or a delete removed (shown collapsed), the fields
   * an edit changed (before → after), or the counts of an operation (a prune, an import).
   */
  kind: 'created' | 'deleted' | 'changed' | 'counts';
  lines: string[];
}

/** Actions whose changes are counts (`sessions: 3`), not fields before → after. */
const COUNTED = new Set([
  'history.prune',
  'import.message-nest',
  'auth.revoke-sessions',
  'user.revoke-sessions',
]);

/** Fields that hold the id of another thing, by the kind `names` keys it with. */
const ID_FIELDS: Record<string, string> = {
  templateId: 'template',
  taskId: 'task',
  channelId: 'channel',
};

/** `user.accept-invite` → `userAcceptInvite`, the sentence's key. */
const keyOf = (action: string) =>
  action.replace(/[.-]([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Who did it: a person's name, or the command line and Herald's own timer in words. */
function whoOf(entry: AuditEntry, t: Translate): string {
  if (entry.userId === null && entry.action !== 'auth.sign-in-failed') {
    if (entry.username === 'cli') return t('audit.byCli');
    if (entry.username === 'schedule') return t('audit.bySchedule');
  }
  return entry.username || t('audit.someone');
}

/** The id a change held, after or else before (a delete's). */
function idIn(entry: AuditEntry, field: string): number | null {
  const change = entry.changes.find((c) => c.field === field);
  if (!change || 'changed' in change) return null;
  const id = change.after ?? change.before;
  return typeof id === 'number' ? id : null;
}

/** What `names` kept for a kind and id, or `#id`. */
function named(entry: AuditEntry, kind: string, id: number | string): string {
  return entry.names?.[`${kind}:${id}`] ?? `#${id}`;
}

/** The task or template an instance belongs to, in words: "template Nightly". */
function sourceOf(entry: AuditEntry, t: Translate): string {
  const kept = Object.keys(entry.names ?? {}).find((k) => /^(task|template):/.test(k));
  const [kind, id] = kept
    ? (kept.split(':') as [string, string])
    : idIn(entry, 'templateId') !== null
      ? ['template', String(idIn(entry, 'templateId'))]
      : idIn(entry, 'taskId') !== null
        ? ['task', String(idIn(entry, 'taskId'))]
        : [null, null];
  if (!kind || !id) return t('audit.sourceUnknown');
  return t(kind === 'task' ? 'audit.sourceTask' : 'audit.sourceTemplate', {
    name: named(entry, kind, id),
  });
}

/** The sentence of an entry: its dictionary key and the names that fill it. */
export function auditSentence(entry: AuditEntry, t: Translate, known: (key: string) => boolean) {
  const who = whoOf(entry, t);
  const target = entry.targetName ?? (entry.targetId ? `#${entry.targetId}` : '');
  const params: Record<string, string> = { who, target };
  let key = `auditSays.${keyOf(entry.action)}`;

  if (entry.action.startsWith('instance.')) {
    const channelId = idIn(entry, 'channelId');
    params.source = sourceOf(entry, t);
    // An instance's own name is its channel's, as it was.
    params.channel =
      channelId !== null && entry.names?.[`channel:${channelId}`]
        ? entry.names[`channel:${channelId}`]
        : (entry.targetName ?? (channelId !== null ? `#${channelId}` : ''));
  } else if (entry.action === 'delivery.retry') {
    params.target = `#${entry.targetId ?? ''}`;
  } else if (
    entry.action === 'user.update' &&
    entry.changes.length === 1 &&
    entry.changes[0].field === 'password' &&
    entry.userId !== null &&
    String(entry.userId) === entry.targetId
  ) {
    key = 'auditSays.userChangeOwnPassword';
  } else if (entry.action === 'template.update' && entry.changes.length === 1) {
    const [change] = entry.changes;
    if (change.field === 'enabled' && 'after' in change) {
      key = change.after ? 'auditSays.templateEnable' : 'auditSays.templateDisable';
    }
  }
  if (!known(key)) {
    // An action this console does not know yet (a newer server): said plainly, not dropped.
    key = 'auditSays.unknown';
    params.action = entry.action;
  }
  return { key, params } satisfies AuditSentence;
}

/** A value as the details show it. */
function shown(entry: AuditEntry, field: string, value: unknown, t: Translate): string {
  if (value === null || value === undefined || value === '') return t('audit.none');
  if (Array.isArray(value) && value.length === 0) return t('audit.none');
  const kind = ID_FIELDS[field];
  if (kind && (typeof value === 'number' || typeof value === 'string')) {
    return named(entry, kind, value);
  }
  if (typeof value === 'boolean') return value ? t('audit.yes') : t('audit.no');
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object')) return value.join(', ');
  return JSON.stringify(value);
}

/** A field's label: the ids of other things by what they are, the rest as the API names them. */
function labelOf(field: string, t: Translate): string {
  return ID_FIELDS[field] ? t(`audit.field.${field}`) : field;
}

const isEmpty = (v: unknown) =>
  v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

/** The details of an entry: what was created or deleted, what changed, or what was counted. */
export function auditDetails(entry: AuditEntry, t: Translate): AuditDetails {
  const line = (c: AuditChange, value: (c: { before: unknown; after: unknown }) => string) =>
    'changed' in c
      ? `${labelOf(c.field, t)}: ${t('audit.secretChanged')}`
      : `${labelOf(c.field, t)}: ${value(c)}`;
  if (COUNTED.has(entry.action)) {
    return {
      kind: 'counts',
      lines: entry.changes.map((c) => line(c, ({ after }) => shown(entry, c.field, after, t))),
    };
  }
  const created = entry.action.endsWith('.create');
  const deleted = entry.action.endsWith('.delete');
  if (created || deleted) {
    // What there is (or was): empty fields say nothing about what was made.
    const kept = entry.changes.filter((c) =>
      'changed' in c ? true : !isEmpty(created ? c.after : c.before),
    );
    return {
      kind: created ? 'created' : 'deleted',
      lines: kept.map((c) =>
        'changed' in c
          ? `${labelOf(c.field, t)}: ${t('audit.secretSet')}`
          : line(c, ({ before, after }) => shown(entry, c.field, created ? after : before, t)),
      ),
    };
  }
  return {
    kind: 'changed',
    lines: entry.changes.map((c) =>
      line(
        c,
        ({ before, after }) =>
          `${shown(entry, c.field, before, t)} → ${shown(entry, c.field, after, t)}`,
      ),
    ),
  };
}
