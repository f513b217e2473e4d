import { accountRoutes } from './account';
import { auditRoutes } from './audit';
import { authRoutes } from './auth';
import { backupRoutes } from './backup';
import { channelRoutes } from './channels';
import { digestRoutes } from './digests';
import { eventRoutes } from './events';
import { imageProxyRoutes } from './image-proxy';
import { importRoutes } from './import';
import { instanceRoutes } from './instances';
import { logRoutes } from './logs';
import { maintenanceRoutes } from './maintenance';
import { messageRoutes } from './messages';
import { pushRoutes } from './push';
import { quietHoursRoutes } from './quiet-hours';
import { scheduleRoutes } from './schedules';
import { settingsRoutes } from './settings';
import { signInRoutes } from './sign-in';
import { statsRoutes } from './stats';
import { taskRoutes } from './tasks';
import { templateRoutes } from './templates';
import { twoFactorRoutes } from './two-factor';
import { userRoutes } from './users';

/**
 * The console API, feature by feature: the one table the server registers its routes from,
 * the OpenAPI document is generated from, and the console calls.
 */
export const consoleRoutes = {
  auth: authRoutes,
  account: accountRoutes,
  twoFactor: twoFactorRoutes,
  users: userRoutes,
  channels: channelRoutes,
  tasks: taskRoutes,
  templates: templateRoutes,
  instances: instanceRoutes,
  logs: logRoutes,
  messages: messageRoutes,
  schedules: scheduleRoutes,
  settings: settingsRoutes,
  maintenance: maintenanceRoutes,
  stats: statsRoutes,
  events: eventRoutes,
  import: importRoutes,
  audit: auditRoutes,
  backup: backupRoutes,
  push: pushRoutes,
  quietHours: quietHoursRoutes,
  digests: digestRoutes,
  imageProxy: imageProxyRoutes,
  signIn: signInRoutes,
};

export * from './account';
export * from './audit';
export * from './auth';
export * from './backup';
export * from './channels';
export * from './digests';
export * from './events';
export * from './image-proxy';
export * from './import';
export * from './instances';
export * from './logs';
export * from './maintenance';
export * from './messages';
export * from './push';
export * from './quiet-hours';
export * from './schedules';
export * from './settings';
export * from './sign-in';
export * from './stats';
export * from './tasks';
export * from './templates';
export * from './two-factor';
export * from './users';
