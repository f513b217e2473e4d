import express, { Router, type NextFunction, type Request, type Response } from 'express';

import { AppError } from '../../lib/errors';
import { checkJsonBody } from '../middleware/bad-input';
import { notFoundHandler } from '../middleware/error-handler';
import {
  createAccountRouter,
  createInviteRouter,
  type AccountRouterDeps,
} from './account/account-router';
import { aroundRoutes } from '../contract-route';
import { auditRecorder } from './audit/audit-recorder';
import { createAuditRouter } from './audit/audit-router';
import { routeAuditTable } from './audit/route-audit';
import type { AuditLog } from '../../features/audit/audit-log';
import type { AuditStates } from '../../features/audit/audit-states';
import { createTwoFactorRouter } from './account/two-factor-router';
import { createAuth, type AuthRouterDeps } from './auth/auth-router';
import { createBackupRouter, type BackupRouterDeps } from './backup/backup-router';
import { createChannelRouter } from './channels/channel-router';
import type { ChannelService } from '../../features/channel-config/channel-service';
import { createEventRouter, type EventRouterDeps } from './events/event-router';
import { LiveStreams } from './events/live-streams';
import {
  createImageProxyRouter,
  type ImageProxyRouterDeps,
} from './image-proxy/image-proxy-router';
import {
  createImportRouter,
  IMPORT_UPLOAD_PATH,
  type ImportRouterDeps,
} from './import/import-router';
import { createInstanceRouter } from './instances/instance-router';
import type { InstanceService } from '../../features/sources/instance-service';
import { createLogRouter } from './logs/log-router';
import type { LogService } from '../../features/history/log-service';
import {
  createMaintenanceRouter,
  type MaintenanceRouterDeps,
} from './maintenance/maintenance-router';
import { createMessageRouter } from './messages/message-router';
import { createPushRouter, type PushRouterDeps } from './push/push-router';
import type { MessageService } from '../../features/hosted/message-service';
import { createQuietHoursRouter } from './quiet-hours/quiet-hours-router';
import { createDigestRouter } from './digests/digest-router';
import type { DigestConsole } from '../../features/digests/digest-console';
import { createScheduleRouter } from './schedules/schedule-router';
import type { QuietHoursService } from '../../features/quiet-hours/quiet-hours-service';
import type { ScheduleService } from '../../features/schedules/schedule-service';
import { createSettingsRouter, type SettingsRouterDeps } from './settings/settings-router';
import { createSignInRouters, type SignInRouterDeps } from './sign-in/sign-in-router';
import { createStatsRouter } from './stats/stats-router';
import type { StatsService } from '../../features/history/stats-service';
import type { DashboardNotice } from '../../../contract';
import { createTaskRouter } from './tasks/task-router';
import type { TaskService } from '../../features/sources/task-service';
import { createTemplateRouter } from './templates/template-router';
import { createUserRouter } from './users/user-router';
import type { TemplateService } from '../../features/sources/template-service';

/**
 * Mutations must be JSON: a cross-site form cannot send application/json without a CORS
 * preflight, which Herald never grants; with SameSite=Strict cookies that closes CSRF.
 */
function jsonOnly(req: Request, _res: Response, next: NextFunction) {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
  // A body-less POST (logout, token rotation) carries no type; anything with a body or a
  // declared type must be JSON.
  const declared = req.headers['content-type'] !== undefined;
  const hasBody =
    Number(req.headers['content-length'] ?? 0) > 0 ||
    req.headers['transfer-encoding'] !== undefined;
  // The import upload is a raw file. That is as safe as JSON: a cross-site page cannot send
  // application/octet-stream without a preflight either, and the cross-site guard still runs.
  if (
    req.method === 'POST' &&
    req.path === IMPORT_UPLOAD_PATH &&
    req.is('application/octet-stream')
  ) {
    return next();
  }
  // The declared type itself, not req.is(): that answers null for a request without a body, so
  // `curl -X POST -H 'Content-Type: application/json'` (an empty object) was refused with 415.
  const mediaType = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if ((declared || hasBody) && mediaType !== 'application/json') {
    throw new AppError(415, 'Content-Type must be application/json');
  }
  next();
}

/** The console's routers, each with the service or the parts it uses (built by server/composition.ts). */
export interface ConsoleRouterDeps {
  auth: AuthRouterDeps;
  /** Accounts, invites and sessions (the team layer). */
  account: AccountRouterDeps;
  channels: ChannelService;
  instances: InstanceService;
  tasks: TaskService;
  templates: TemplateService;
  logs: LogService;
  messages: MessageService;
  schedules: ScheduleService;
  /** Quiet-hours rules of instances, channels and people (issue 46 §1). */
  quietHours: QuietHoursService;
  /** Tasks' and templates' digest rules (issue 46 §2). */
  digests: DigestConsole;
  stats: StatsService;
  /** The dashboard's notices (a reverse proxy without publicBaseUrl). */
  notices?: () => DashboardNotice[];
  settings: SettingsRouterDeps;
  events: EventRouterDeps;
  maintenance: MaintenanceRouterDeps;
  import: ImportRouterDeps;
  audit: { log: AuditLog; states: AuditStates };
  backups: BackupRouterDeps;
  /** Web Push: the VAPID key and each person's own subscriptions. */
  push: PushRouterDeps;
  /** The image proxy and each person's remote-image choices. */
  imageProxy: ImageProxyRouterDeps;
  /** Settings → Sign-in and OpenID Connect (issue 44). */
  signIn: SignInRouterDeps;
}

export function createConsoleRouter(deps: ConsoleRouterDeps): Router {
  const router = Router();
  // Express would answer OPTIONS itself with a text/plain list of methods, outside the
  // envelope; Herald grants no preflight, so OPTIONS is just a method no endpoint has.
  router.options('/{*rest}', notFoundHandler);
  router.use(jsonOnly);
  router.use(express.json({ limit: '2mb' }));
  router.use(checkJsonBody);
  // Every change below is recorded, by the one table of routes/actions (audit/route-audit.ts).
  router.use(aroundRoutes(auditRecorder(deps.audit.log, routeAuditTable(deps.audit.states))));
  // Shared by sign-out (which ends a session's streams) and the event stream itself.
  const streams = new LiveStreams();
  const auth = createAuth(deps.auth, streams, deps.audit.log);
  router.use(auth.router);
  const signIn = createSignInRouters(deps.signIn, auth, streams);
  router.use(signIn.open);
  router.use(createInviteRouter(deps.account, auth));
  router.use(auth.guarded);
  router.use(signIn.admin);
  router.use(createAccountRouter(deps.account, auth, streams));
  router.use(createTwoFactorRouter(deps.auth.twoFactor, deps.auth.auth, auth));
  router.use(createUserRouter(deps.account.users, deps.account.sessions, streams));
  router.use(createChannelRouter(deps.channels));
  router.use(createTaskRouter(deps.tasks, deps.instances));
  router.use(createTemplateRouter(deps.templates, deps.instances));
  router.use(createInstanceRouter(deps.instances));
  router.use(createLogRouter(deps.logs));
  router.use(createMessageRouter(deps.messages));
  router.use(createScheduleRouter(deps.schedules));
  router.use(createQuietHoursRouter(deps.quietHours));
  router.use(createDigestRouter(deps.digests));
  router.use(createSettingsRouter(deps.settings, streams));
  router.use(createStatsRouter(deps.stats, deps.notices));
  router.use(createEventRouter(deps.events, streams));
  router.use(createMaintenanceRouter(deps.maintenance));
  router.use(createImportRouter(deps.import));
  router.use(createAuditRouter(deps.audit.log));
  router.use(createBackupRouter(deps.backups));
  router.use(createPushRouter(deps.push));
  router.use(createImageProxyRouter(deps.imageProxy));
  return router;
}
