import express, { Router, type NextFunction, type Request, type Response } from 'express';

import type { AppContext } from '../../context';
import { checkJsonBody } from '../../middleware/bad-input';
import { AppError } from '../../lib/errors';
import { notFoundHandler } from '../../middleware/error-handler';
import { createAuth } from './auth/auth-router';
import { createChannelRouter } from './channels/channel-router';
import { ChannelService } from './channels/channel-service';
import { createEventRouter } from './events/event-router';
import { messageNestScheduleSink } from '../../import/message-nest/schedule-store';
import { createImportRouter, IMPORT_UPLOAD_PATH } from './import/import-router';
import { LiveStreams } from './events/live-streams';
import { createInstanceRouter } from './instances/instance-router';
import { InstanceService } from './instances/instance-service';
import { createLogRouter } from './logs/log-router';
import { createMaintenanceRouter } from './maintenance/maintenance-router';
import { LogService } from './logs/log-service';
import { createMessageRouter } from './messages/message-router';
import { MessageService } from './messages/message-service';
import { createScheduleRouter } from './schedules/schedule-router';
import { ScheduleService } from './schedules/schedule-service';
import { createSettingsRouter } from './settings/settings-router';
import { StatsService } from './stats/stats-service';
import { createTaskRouter } from './tasks/task-router';
import { TaskService } from './tasks/task-service';
import { createTemplateRouter } from './templates/template-router';
import { TemplateService } from './templates/template-service';

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
  if ((declared || hasBody) && !req.is('application/json')) {
    throw new AppError(415, 'Content-Type must be application/json');
  }
  next();
}

export function createConsoleRouter(ctx: AppContext, channels: ChannelService): Router {
  const router = Router();
  // Express would answer OPTIONS itself with a text/plain list of methods, outside the
  // envelope; Herald grants no preflight, so OPTIONS is just a method no endpoint has.
  router.options('/{*rest}', notFoundHandler);
  router.use(jsonOnly);
  router.use(express.json({ limit: '2mb' }));
  router.use(checkJsonBody);
  const streams = new LiveStreams();
  const auth = createAuth(ctx, streams);
  const instances = new InstanceService(ctx);
  const messages = new MessageService(ctx);
  const stats = new StatsService(ctx);
  router.use(auth.router);
  router.use(auth.guarded);
  router.use(createChannelRouter(channels));
  router.use(createTaskRouter(new TaskService(ctx, instances), instances));
  router.use(createTemplateRouter(new TemplateService(ctx, instances), instances));
  router.use(createInstanceRouter(instances));
  router.use(createLogRouter(new LogService(ctx)));
  router.use(createMessageRouter(messages));
  router.use(createScheduleRouter(new ScheduleService(ctx)));
  router.use(createSettingsRouter(ctx, stats));
  router.use(createEventRouter(ctx, streams));
  router.use(createMaintenanceRouter(ctx));
  router.use(
    createImportRouter(
      ctx,
      messageNestScheduleSink(() => ctx.clock.now()),
    ),
  );
  return router;
}
