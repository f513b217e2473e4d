import type { NextFunction, Request, Response } from 'express';

import { consoleRoutes, type RouteSpec, type UserRole } from '../../../contract';
import { AppError, unauthorized } from '../../lib/errors';

/**
 * Who may call a console route: `public` answers without a session; otherwise the least role
 * that may, where admin ⊃ editor ⊃ viewer (docs/running-for-a-team.md "Roles").
 */
export type RouteAccess = 'public' | UserRole;

type AccessTable = {
  [F in keyof typeof consoleRoutes]: { [R in keyof (typeof consoleRoutes)[F]]: RouteAccess };
};

/**
 * Every console route and who may call it: the one place roles are decided. The type makes a
 * route without an entry a compile error, and registering one anyway fails at start.
 *
 * A viewer reads the dashboard, the logs and the reader (their own read state included) and
 * nothing that holds a token or a secret, masked or not: channels, tasks and templates answer
 * their configuration, so they are editor routes. Editors run the sending side; administrators
 * the accounts, settings, import and maintenance.
 */
export const ROUTE_ACCESS: AccessTable = {
  auth: {
    status: 'public',
    setup: 'public',
    login: 'public',
    desktopLogin: 'public',
    logout: 'viewer',
    me: 'viewer',
    password: 'viewer',
  },
  account: {
    password: 'viewer',
    sessions: 'viewer',
    revokeSessions: 'viewer',
    revokeSession: 'viewer',
    invite: 'public',
    acceptInvite: 'public',
  },
  twoFactor: {
    status: 'viewer',
    setup: 'viewer',
    enable: 'viewer',
    disable: 'viewer',
    recoveryCodes: 'viewer',
  },
  users: {
    list: 'admin',
    create: 'admin',
    update: 'admin',
    remove: 'admin',
    invite: 'admin',
    sessions: 'admin',
    revokeSessions: 'admin',
  },
  channels: {
    types: 'editor',
    list: 'editor',
    create: 'editor',
    get: 'editor',
    update: 'editor',
    remove: 'editor',
    // A test send before saving is the test send an editor may make after (a saved channel's
    // test already tries an unsaved edit, to any destination), so it needs no more.
    testUnsaved: 'editor',
    test: 'editor',
  },
  tasks: {
    list: 'editor',
    create: 'editor',
    get: 'editor',
    update: 'editor',
    remove: 'editor',
    token: 'editor',
    rotateToken: 'editor',
    instances: 'editor',
    addInstance: 'editor',
  },
  templates: {
    list: 'editor',
    create: 'editor',
    previewUnsaved: 'editor',
    get: 'editor',
    update: 'editor',
    patch: 'editor',
    remove: 'editor',
    token: 'editor',
    rotateToken: 'editor',
    preview: 'editor',
    instances: 'editor',
    addInstance: 'editor',
  },
  instances: { update: 'editor', remove: 'editor' },
  logs: { list: 'viewer', get: 'viewer', retry: 'editor' },
  messages: {
    list: 'viewer',
    unreadCount: 'viewer',
    // Read state is each person's own, so marking read is reading, not changing Herald.
    readAll: 'viewer',
    get: 'viewer',
    setRead: 'viewer',
    remove: 'editor',
    createLink: 'editor',
    revokeLink: 'editor',
  },
  schedules: {
    list: 'editor',
    create: 'editor',
    preview: 'editor',
    get: 'editor',
    update: 'editor',
    patch: 'editor',
    remove: 'editor',
    run: 'editor',
  },
  settings: { get: 'admin', update: 'admin' },
  maintenance: { info: 'admin', prune: 'admin' },
  stats: { get: 'viewer', channelHealth: 'viewer', notices: 'viewer' },
  events: { stream: 'viewer' },
  import: { messageNest: 'admin' },
  audit: { list: 'admin' },
  backup: { download: 'admin', schedule: 'admin', updateSchedule: 'admin' },
  // Each person's own devices: a subscription reaches only messages its owner may read.
  push: { key: 'viewer', list: 'viewer', create: 'viewer', remove: 'viewer' },
  // Everyone has their own person rule; the service refuses a viewer a channel's or instance's
  // rules and anyone but an administrator another person's (quiet-hours-service.ts).
  quietHours: {
    list: 'viewer',
    create: 'viewer',
    preview: 'viewer',
    update: 'viewer',
    remove: 'viewer',
  },
  // A digest rule is part of its task's or template's configuration: editors'.
  digests: {
    taskGet: 'editor',
    taskPut: 'editor',
    taskRemove: 'editor',
    templateGet: 'editor',
    templatePut: 'editor',
    templateRemove: 'editor',
    instanceGet: 'editor',
    instancePut: 'editor',
    instanceRemove: 'editor',
  },
  // Everyone who reads messages sees their images, and each person's choices are their own.
  imageProxy: {
    image: 'viewer',
    choices: 'viewer',
    setAlways: 'viewer',
    setMessage: 'viewer',
    setSource: 'viewer',
  },
  signIn: {
    methods: 'public',
    settings: 'admin',
    updateSettings: 'admin',
    oidcLogin: 'public',
    oidcCallback: 'public',
  },
};

const RANK: Record<UserRole, number> = { viewer: 0, editor: 1, admin: 2 };

/** Whether a role may call a route of the given access. */
export function roleMay(role: UserRole, access: RouteAccess): boolean {
  return access === 'public' || RANK[role] >= RANK[access];
}

const accessBySpec = new Map<RouteSpec, RouteAccess>(
  Object.entries(consoleRoutes).flatMap(([feature, routes]) =>
    Object.entries(routes as Record<string, RouteSpec>).map(([name, spec]) => [
      spec,
      (ROUTE_ACCESS as unknown as Record<string, Record<string, RouteAccess>>)[feature]![name]!,
    ]),
  ),
);

/** The access of a console route; throws for one not in the table, so none is left open. */
export function accessOf(spec: RouteSpec): RouteAccess {
  const access = accessBySpec.get(spec);
  if (access === undefined) {
    throw new Error(`${spec.method.toUpperCase()} ${spec.path} has no entry in ROUTE_ACCESS`);
  }
  if ((access === 'public') !== (spec.public === true)) {
    throw new Error(
      `${spec.method.toUpperCase()} ${spec.path}: ROUTE_ACCESS and the contract disagree on public`,
    );
  }
  return access;
}

/**
 * What a person may reach while the administrator requires two-factor and they have none yet
 * (`twoFactor: 'required'`): enough to see who they are, set it up, and look after their
 * password and sessions, or sign out.
 */
export const BEFORE_TWO_FACTOR: ReadonlySet<RouteSpec> = new Set<RouteSpec>([
  consoleRoutes.auth.me,
  consoleRoutes.auth.logout,
  consoleRoutes.auth.password,
  consoleRoutes.account.password,
  consoleRoutes.account.sessions,
  consoleRoutes.account.revokeSessions,
  consoleRoutes.account.revokeSession,
  ...Object.values(consoleRoutes.twoFactor),
]);

export const TWO_FACTOR_FIRST =
  'two-factor: your administrator requires it; set it up under Account';

/**
 * The middleware that answers 403 to a role the route's access does not admit, and to a person
 * who must set up two-factor first, everywhere but BEFORE_TWO_FACTOR.
 */
export function accessGuard(spec: RouteSpec) {
  const access = accessOf(spec);
  const beforeTwoFactor = BEFORE_TWO_FACTOR.has(spec);
  return (req: Request, _res: Response, next: NextFunction) => {
    if (access === 'public') return next();
    if (!req.user) throw unauthorized('not signed in');
    if (!roleMay(req.user.role, access)) {
      throw new AppError(403, `forbidden: this needs the ${access} role; you are ${req.user.role}`);
    }
    if (req.user.twoFactor === 'required' && !beforeTwoFactor) {
      throw new AppError(403, TWO_FACTOR_FIRST);
    }
    next();
  };
}
