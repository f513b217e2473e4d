import type { Express } from 'express';

import type { OpsRouterDeps } from './api/ops-router';
import { createApp } from './app';
import type { HeraldConfig } from './config/herald-config';
import type { SharedState } from './db/postgres/shared-state';
import { AuditStates } from './features/audit/audit-states';
import type { AuthService } from './features/auth/auth-service';
import { QuietHoursService } from './features/quiet-hours/quiet-hours-service';
import { DigestConsole } from './features/digests/digest-console';
import { SessionList } from './features/auth/session-list';
import { TwoFactorService } from './features/auth/two-factor-service';
import { UserService } from './features/auth/user-service';
import type { BackupService } from './features/backup/backup-service';
import { LogService } from './features/history/log-service';
import { StatsService } from './features/history/stats-service';
import { HookService } from './features/hooks/hook-service';
import { MessageService } from './features/hosted/message-service';
import { ProxyHostNotice } from './features/ops/proxy-host-notice';
import { AuthProxySignIn, proxySettings } from './features/sso/auth-proxy';
import { OidcClient } from './features/sso/oidc-client';
import { createSignInConfig } from './features/sso/sign-in-config';
import { ssoSignOut } from './features/sso/sso-sign-out';
import { publicBaseUrl } from './features/hosted/share-links';
import { SendRateLimiter } from './features/sending/rate-limiter';
import { InstanceService } from './features/sources/instance-service';
import { TaskService } from './features/sources/task-service';
import { TemplateService } from './features/sources/template-service';
import type { WebPush } from './features/web-push/web-push';
import type { HeraldParts } from './parts';

/** The HTTP app: each router gets its service, or the few parts it reads. */
export function composeApp(
  parts: HeraldParts,
  auth: AuthService,
  config: HeraldConfig,
  shared: SharedState | null,
  ops: OpsRouterDeps,
  backups: BackupService,
  webPush: WebPush,
): Express {
  const { sequelize, writeLock, clock, settings, tokens, registry, events, attachments } = parts;
  const instances = new InstanceService({ writeLock, registry });
  const proxyHost = new ProxyHostNotice(parts);
  // Settings → Sign-in over HERALD_OIDC_* (issue 44): OpenID Connect, password sign-in, and the
  // group → role mapping both SSO ways read (signInConfig.groupRoles()).
  const signInConfig = createSignInConfig({
    writeLock,
    secrets: parts.secrets,
    env: config.oidc,
    publicBase: () => publicBaseUrl(parts).replace(/\/+$/, ''),
    // HERALD_AUTH_PROXY_*, shown read-only in Settings → Sign-in; its logout URL on the sign-in page.
    proxy: () => proxySettings(config.authProxy),
  });
  const oidc = new OidcClient(clock);
  // The trusted proxy's header (HERALD_AUTH_PROXY_HEADER); the config refused it without proxies.
  const authProxy =
    config.authProxy && config.trustProxy
      ? new AuthProxySignIn({
          config: config.authProxy,
          trustProxy: config.trustProxy,
          writeLock,
          auth,
          audit: parts.audit,
          // The mapping OpenID Connect reads too: HERALD_OIDC_*_GROUPS over Settings → Sign-in.
          groupRoles: () => signInConfig.groupRoles(),
        })
      : null;
  return createApp({
    proxyHostWatch: proxyHost.middleware(),
    version: parts.version,
    trustProxy: parts.trustProxy,
    guards: config.guards,
    rendererDir: config.rendererDir,
    send: { sends: parts.sends, settings, dataDir: parts.dataDir },
    hooks: { hooks: new HookService({ sends: parts.sends, secrets: parts.secrets, clock }) },
    files: { attachments },
    preview: { limiter: shared?.previewLimiter ?? new SendRateLimiter(), clock },
    tokenKind: { tokens },
    ops,
    console: {
      auth: {
        auth,
        twoFactor: new TwoFactorService({ writeLock, clock, settings, secrets: parts.secrets }),
        throttle: shared?.loginThrottle,
        clock,
        version: parts.version,
        desktopSecret: parts.desktopSecret,
        setupCode: parts.setupCode,
        sso: {
          passwordAllowed: (username) => signInConfig.passwordAllowed(username),
          signOutRedirect: ssoSignOut(signInConfig, oidc),
        },
        proxy: authProxy,
      },
      account: {
        users: new UserService({ writeLock, clock, settings, listenUrl: parts.listenUrl }),
        sessions: new SessionList({ writeLock, clock }),
      },
      channels: parts.channels,
      instances,
      tasks: new TaskService({ sequelize, writeLock, tokens }, instances),
      templates: new TemplateService(
        { sequelize, writeLock, tokens, secrets: parts.secrets },
        instances,
      ),
      logs: new LogService({
        sequelize,
        deliveries: parts.deliveries,
        dispatcher: parts.dispatcher,
        attachments,
      }),
      messages: new MessageService({
        sequelize,
        writeLock,
        clock,
        settings,
        listenUrl: parts.listenUrl,
        events: parts.events,
        images: parts.imageProxy.messageImages(),
      }),
      schedules: parts.schedules,
      quietHours: new QuietHoursService({ writeLock, clock }),
      digests: new DigestConsole(parts.digests.rules),
      stats: new StatsService({ clock, sequelize, attachments }),
      notices: () => proxyHost.notices(),
      settings: {
        settings,
        version: parts.version,
        dataDir: parts.dataDir,
        listenUrl: parts.listenUrl,
        dispatcher: parts.dispatcher,
      },
      events: { events },
      maintenance: { sequelize, writeLock, settings, clock, events, attachments },
      import: {
        registry,
        writeLock,
        clock,
        channels: parts.channels,
        schedules: parts.schedules,
        settings,
        dataDir: config.dataDir,
      },
      audit: {
        log: parts.audit,
        states: new AuditStates({ registry, secrets: parts.secrets, settings }),
      },
      backups: { backups, audit: parts.audit },
      push: { keys: webPush.keys, subscriptions: webPush.subscriptions },
      imageProxy: parts.imageProxy,
      signIn: {
        config: signInConfig,
        oidc,
        secrets: parts.secrets,
        clock,
        writeLock,
        audit: parts.audit,
      },
    },
  });
}
