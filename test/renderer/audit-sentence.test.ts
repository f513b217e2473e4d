import { describe, expect, it } from 'vitest';

import type { AuditEntry } from '../../contract/console/audit';
import { AUDIT_ACTIONS } from '../../contract/audit-actions';
import { createAppI18n, type Locale } from '../../renderer/src/i18n';
import { auditDetails, auditSentence } from '../../renderer/src/lib/audit-sentence';

const entry = (over: Partial<AuditEntry> = {}): AuditEntry => ({
  id: 1,
  at: '2026-11-27T10:00:00.000Z',
  userId: 1,
  username: 'bob',
  ip: null,
  userAgent: null,
  action: 'channel.update',
  targetType: 'channel',
  targetId: '7',
  targetName: 'Ops',
  changes: [],
  names: {},
  ...over,
});

/** The sentence as the page fills it, in `locale`. */
function say(e: AuditEntry, locale: Locale) {
  const { global: i18n } = createAppI18n(locale);
  const t = (key: string, params?: Record<string, unknown>) => i18n.t(key, params ?? {});
  const { key, params } = auditSentence(e, t, (k) => i18n.te(k, 'en'));
  return { key, text: t(key, params), i18n };
}

describe('auditSentence', () => {
  it.each(AUDIT_ACTIONS.map((a) => [a]))(
    'words %s in both languages, with its names filled in',
    (action) => {
      for (const locale of ['en', 'zh-CN'] as const) {
        const { key, text, i18n } = say(entry({ action }), locale);
        expect(key).not.toBe('auditSays.unknown');
        // Its own sentence in this language, not English as a fallback.
        expect(i18n.te(key, locale)).toBe(true);
        expect(text).not.toMatch(/[{}]/);
        expect(text).not.toContain(action);
        expect(text).toMatch(/bob|Ops/);
      }
    },
  );

  it('names who acted as the command line, Herald’s timer or the name a failed sign-in tried', () => {
    const cli = entry({
      userId: null,
      username: 'cli',
      action: 'backup.restore',
      targetName: 'a.herald-backup',
    });
    expect(say(cli, 'en').text).toBe('The command line restored the backup a.herald-backup');
    const timer = entry({
      userId: null,
      username: 'schedule',
      action: 'backup.create',
      targetName: 'b.herald-backup',
    });
    expect(say(timer, 'zh-CN').text).toBe('Herald 定时任务 生成了备份 b.herald-backup');
    const failed = entry({
      userId: null,
      username: 'cli',
      action: 'auth.sign-in-failed',
      targetName: 'cli',
    });
    expect(say(failed, 'en').text).toBe('A sign-in as cli failed');
  });

  it('words an instance by the names the entry kept, and falls back to ids it did not keep', () => {
    const linked = entry({
      action: 'instance.delete',
      targetName: 'Ops',
      changes: [
        { field: 'taskId', before: 4, after: null },
        { field: 'channelId', before: 2, after: null },
      ],
      names: { 'task:4': 'reports', 'channel:2': 'Ops' },
    });
    expect(say(linked, 'en').text).toBe('bob unlinked task reports from channel Ops');
    expect(say(linked, 'zh-CN').text).toBe('bob 取消了任务 reports 与渠道 Ops 的关联');
    // Written before Herald kept names: the ids in the changes, and the target's name.
    const older = entry({
      action: 'instance.create',
      targetName: 'Team inbox',
      changes: [
        { field: 'templateId', before: null, after: 1 },
        { field: 'channelId', before: null, after: 3 },
      ],
    });
    expect(say(older, 'en').text).toBe('bob linked template #1 to channel Team inbox');
  });

  it('says a password change, a template switched on or off, and an action it does not know', () => {
    const own = entry({
      action: 'user.update',
      targetId: '1',
      changes: [{ field: 'password', changed: true }],
    });
    expect(say(own, 'en').text).toBe('bob changed their password');
    const other = entry({ ...own, targetId: '2', targetName: 'carol' });
    expect(say(other, 'en').text).toBe('bob changed the user carol');
    const off = entry({
      action: 'template.update',
      targetName: 'Nightly',
      changes: [{ field: 'enabled', before: true, after: false }],
    });
    expect(say(off, 'en').text).toBe('bob disabled the template Nightly');
    expect(say(off, 'zh-CN').text).toBe('bob 停用了模板 Nightly');
    const future = entry({ action: 'robot.dance', targetName: 'R2' });
    expect(say(future, 'en').text).toBe('bob: robot.dance R2');
  });
});

describe('auditDetails', () => {
  const { global: i18n } = createAppI18n('en');
  const t = (key: string, params?: Record<string, unknown>) => i18n.t(key, params ?? {});

  it('lists what a create made, leaving out what it left empty, secrets only as set', () => {
    const details = auditDetails(
      entry({
        action: 'channel.create',
        changes: [
          { field: 'name', before: null, after: 'Ops' },
          { field: 'description', before: null, after: '' },
          { field: 'config.tags', before: null, after: ['a', 'b'] },
          { field: 'config.secret', changed: true },
        ],
      }),
      t,
    );
    expect(details).toEqual({
      kind: 'created',
      lines: ['name: Ops', 'config.tags: a, b', 'config.secret: set'],
    });
  });

  it('shows an edit before → after with names for ids, and counts as counts', () => {
    const moved = auditDetails(
      entry({
        action: 'instance.update',
        changes: [
          { field: 'channelId', before: 2, after: 3 },
          { field: 'recipient', before: null, after: 'ops@example.com' },
        ],
        names: { 'channel:2': 'Ops', 'channel:3': 'Night shift' },
      }),
      t,
    );
    expect(moved).toEqual({
      kind: 'changed',
      lines: ['channel: Ops → Night shift', 'recipient: (none) → ops@example.com'],
    });
    const pruned = auditDetails(
      entry({
        action: 'history.prune',
        changes: [{ field: 'deleted.sends', before: null, after: 12 }],
      }),
      t,
    );
    expect(pruned).toEqual({ kind: 'counts', lines: ['deleted.sends: 12'] });
    const removed = auditDetails(
      entry({
        action: 'task.delete',
        changes: [{ field: 'name', before: 'reports', after: null }],
      }),
      t,
    );
    expect(removed).toEqual({ kind: 'deleted', lines: ['name: reports'] });
  });
});
