import type { consoleRoutes } from '../../../../contract';
import type { AuditAction, AuditChange } from '../../../../contract';
import { importedChanges } from '../../../features/audit/audit-actions';
import type { AuditState } from '../../../features/audit/audit-diff';
import type { AuditStates } from '../../../features/audit/audit-states';
import { digestAuditState } from '../../../features/digests/digest-console';
import { quietHoursAuditState } from '../../../features/quiet-hours/quiet-hours-service';
import { pushAuditState } from '../../../features/web-push/subscription-service';

/** A request as the rule sees it: the route's parsed input and what the handler answered. */
export interface AuditInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

/**
 * How one console route is audited. The target is found by `target`: the route's `{id}`
 * (`params`), the `id` of the handler's answer (`answer`, for creates) or none (settings, a
 * prune). Its `state` is read before and after the change and compared field by field;
 * `changes` adds what no state holds (a prune's counts).
 */
export interface AuditRule {
  action: AuditAction;
  targetType: string;
  target: 'params' | 'answer' | 'none';
  state?: (id: number | null) => Promise<AuditState | null> | AuditState | null;
  changes?: (input: AuditInput, answer: unknown) => AuditChange[];
  /** A request that changes nothing (an import's dry run) is not recorded. */
  skip?: (input: AuditInput) => boolean;
  /** The name when the state has none. */
  name?: string;
}

/**
 * Every console route, feature by feature, with how it is audited or null: reads, previews and
 * test sends change nothing; sign-in, sign-out, setup and password changes are recorded by the
 * auth router itself (they need what only it knows: the attempted name, the new session).
 * Typed complete: a new route does not compile until it is given its entry here.
 */
export type RouteAuditTable = {
  [F in keyof typeof consoleRoutes]: { [R in keyof (typeof consoleRoutes)[F]]: AuditRule | null };
};

const counts = (answer: unknown, key: string): AuditChange[] => {
  const numbers = (answer as Record<string, unknown> | null)?.[key];
  if (typeof numbers !== 'object' || numbers === null) return [];
  return Object.entries(numbers)
    .filter(([, n]) => typeof n === 'number' && n > 0)
    .map(([field, n]) => ({ field: `${key}.${field}`, before: null, after: n }));
};

export function routeAuditTable(states: AuditStates): RouteAuditTable {
  const channel = (id: number | null) => (id === null ? null : states.channel(id));
  const task = (id: number | null) => (id === null ? null : states.task(id));
  const template = (id: number | null) => (id === null ? null : states.template(id));
  const instance = (id: number | null) => (id === null ? null : states.instance(id));
  const schedule = (id: number | null) => (id === null ? null : states.schedule(id));
  const message = (id: number | null) => (id === null ? null : states.message(id));
  const user = (id: number | null) => (id === null ? null : states.user(id));
  const pushSubscription = (id: number | null) => (id === null ? null : pushAuditState(id));
  const quietRule = (id: number | null) => (id === null ? null : quietHoursAuditState(id));
  const digestState = (owner: 'task' | 'template' | 'instance') => (id: number | null) =>
    id === null ? null : digestAuditState(owner, id);
  /** A change to the signed-in person's own account (the target is whoever asked). */
  const own = (action: AuditAction): AuditRule => ({
    action,
    targetType: 'user',
    target: 'none',
    name: 'own account',
  });
  /** Sessions signed out: how many, from the answer. */
  const revoked = (action: AuditAction, target: AuditRule['target']): AuditRule => ({
    action,
    targetType: 'user',
    target,
    state: target === 'params' ? user : undefined,
    name: target === 'none' ? 'own sessions' : undefined,
    changes: (_input, answer) => [
      { field: 'sessions', before: null, after: (answer as { revoked: number }).revoked },
    ],
  });
  const rule = (
    action: AuditAction,
    targetType: string,
    target: AuditRule['target'],
    state?: AuditRule['state'],
  ): AuditRule => ({ action, targetType, target, state });
  return {
    auth: {
      status: null,
      setup: null,
      login: null,
      desktopLogin: null,
      logout: null,
      me: null,
      password: null,
    },
    account: {
      // The password change and the invite's first sign-in are recorded where they happen.
      password: null,
      sessions: null,
      revokeSessions: revoked('auth.revoke-sessions', 'none'),
      revokeSession: revoked('auth.revoke-sessions', 'none'),
      invite: null,
      acceptInvite: null,
    },
    twoFactor: {
      status: null,
      // A secret waiting for its first code changes nothing until it is enabled.
      setup: null,
      enable: own('user.two-factor-on'),
      disable: own('user.two-factor-off'),
      recoveryCodes: own('user.recovery-codes'),
    },
    users: {
      list: null,
      create: rule('user.create', 'user', 'answer', user),
      update: rule('user.update', 'user', 'params', user),
      remove: rule('user.delete', 'user', 'params', user),
      invite: rule('user.invite', 'user', 'params', user),
      sessions: null,
      revokeSessions: revoked('user.revoke-sessions', 'params'),
    },
    channels: {
      types: null,
      list: null,
      create: rule('channel.create', 'channel', 'answer', channel),
      get: null,
      update: rule('channel.update', 'channel', 'params', channel),
      remove: rule('channel.delete', 'channel', 'params', channel),
      testUnsaved: null,
      test: null,
    },
    tasks: {
      list: null,
      create: rule('task.create', 'task', 'answer', task),
      get: null,
      update: rule('task.update', 'task', 'params', task),
      remove: rule('task.delete', 'task', 'params', task),
      token: null,
      rotateToken: rule('task.rotate-token', 'task', 'params', task),
      instances: null,
      addInstance: rule('instance.create', 'instance', 'answer', instance),
    },
    templates: {
      list: null,
      create: rule('template.create', 'template', 'answer', template),
      previewUnsaved: null,
      get: null,
      update: rule('template.update', 'template', 'params', template),
      patch: rule('template.update', 'template', 'params', template),
      remove: rule('template.delete', 'template', 'params', template),
      token: null,
      rotateToken: rule('template.rotate-token', 'template', 'params', template),
      preview: null,
      instances: null,
      addInstance: rule('instance.create', 'instance', 'answer', instance),
    },
    instances: {
      update: rule('instance.update', 'instance', 'params', instance),
      remove: rule('instance.delete', 'instance', 'params', instance),
    },
    logs: {
      list: null,
      get: null,
      retry: rule('delivery.retry', 'delivery', 'params'),
    },
    messages: {
      list: null,
      unreadCount: null,
      // Reading is not a change of Herald's configuration; the reader marks as it opens.
      readAll: null,
      get: null,
      setRead: null,
      remove: rule('message.delete', 'message', 'params', message),
      createLink: rule('message.share', 'message', 'params', message),
      revokeLink: rule('message.revoke-link', 'message', 'params', message),
    },
    schedules: {
      list: null,
      create: rule('schedule.create', 'schedule', 'answer', schedule),
      preview: null,
      get: null,
      update: rule('schedule.update', 'schedule', 'params', schedule),
      patch: rule('schedule.update', 'schedule', 'params', schedule),
      remove: rule('schedule.delete', 'schedule', 'params', schedule),
      run: rule('schedule.run', 'schedule', 'params', schedule),
    },
    settings: {
      get: null,
      update: rule('settings.update', 'settings', 'none', () => states.settings()),
    },
    maintenance: {
      info: null,
      prune: {
        action: 'history.prune',
        targetType: 'history',
        target: 'none',
        name: 'history',
        changes: (_input, answer) => counts(answer, 'deleted'),
      },
    },
    stats: { get: null, channelHealth: null, notices: null },
    events: { stream: null },
    import: {
      messageNest: {
        action: 'import.message-nest',
        targetType: 'import',
        target: 'none',
        name: 'Message Nest',
        skip: (input) => (input.query as { dryRun?: boolean } | undefined)?.dryRun === true,
        changes: (_input, answer) => importedChanges(answer),
      },
    },
    audit: { list: null },
    // A download is recorded by its route (backup.create, with the file's name); a GET otherwise.
    backup: {
      download: null,
      schedule: null,
      updateSchedule: rule('backup.schedule-update', 'settings', 'none', () =>
        states.backupSchedule(),
      ),
    },
    // A person's own device, named by its device name (its endpoint only by push service).
    push: {
      key: null,
      list: null,
      create: rule('push.subscribe', 'push-subscription', 'answer', pushSubscription),
      remove: rule('push.unsubscribe', 'push-subscription', 'params', pushSubscription),
    },
    quietHours: {
      list: null,
      create: rule('quiethours.create', 'quiet-hours', 'answer', quietRule),
      preview: null,
      update: rule('quiethours.update', 'quiet-hours', 'params', quietRule),
      remove: rule('quiethours.delete', 'quiet-hours', 'params', quietRule),
    },
    // A digest rule is a change to its task or template, named by it.
    digests: {
      taskGet: null,
      taskPut: rule('task.update', 'task', 'params', digestState('task')),
      taskRemove: rule('task.update', 'task', 'params', digestState('task')),
      templateGet: null,
      templatePut: rule('template.update', 'template', 'params', digestState('template')),
      templateRemove: rule('template.update', 'template', 'params', digestState('template')),
      instanceGet: null,
      instancePut: rule('instance.update', 'instance', 'params', digestState('instance')),
      instanceRemove: rule('instance.update', 'instance', 'params', digestState('instance')),
    },
    // A reader's own view of messages, like their read state: not a change to the install.
    imageProxy: {
      image: null,
      choices: null,
      setAlways: null,
      setMessage: null,
      setSource: null,
    },
    signIn: {
      methods: null,
      // The sign-in settings change and SSO sign-ins are recorded by the sign-in router.
      settings: null,
      updateSettings: null,
      oidcLogin: null,
      oidcCallback: null,
    },
  };
}
