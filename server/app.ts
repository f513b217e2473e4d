import { existsSync } from 'node:fs';
import { join } from 'node:path';

import express, { type Express, type RequestHandler } from 'express';

import { consoleFiles } from './api/console-files/console-files';
import { openApiDocument } from './api/openapi';
import { createConsoleRouter, type ConsoleRouterDeps } from './api/console/console-router';
import { isSsoNavigation } from './api/console/sign-in/sso-navigation';
import { createPreviewRouter, type PreviewRouterDeps } from './api/public/preview-router';
import { createTokenKindRouter, type TokenKindRouterDeps } from './api/public/token-kind-router';
import {
  createSendRouter,
  createSendRoutes,
  V1_SEND_PATH,
  V2_SEND_PATH,
  type SendRouterDeps,
} from './api/send/send-router';
import { runHandlers } from './lib/handler-chain';
import { accessLog, accessLogEnabled } from './api/middleware/access-log';
import { rejectMalformedPath, translateClientErrors } from './api/middleware/bad-input';
import { createCrossSiteGuard } from './api/middleware/cross-site-guard';
import { errorHandler, notFoundHandler } from './api/middleware/error-handler';
import { createHostAllowList } from './api/middleware/host-allow-list';
import { createOpsRouter, type OpsRouterDeps } from './api/ops-router';
import { createHookRouter, type HookRouterDeps } from './api/hooks/hook-router';
import { createFilesRouter, type FilesRouterDeps } from './api/files/files-router';
import { HOOKS_BASE } from '../contract';

/**
 * The console is served from the same origin as the API, so 'self' covers every request it
 * makes; inline styles are allowed because Element Plus sets style attributes at run time.
 * Images come only from Herald itself: a hosted message's remote images are served through
 * the image proxy (/api/console/image-proxy), so the sender never learns when or from where a
 * message was read and no http content mixes into an https page (docs/reader.md, "Remote
 * images"). data: and blob: are the page's own.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export interface AppDeps {
  send: SendRouterDeps;
  /** POST /api/hooks/{preset}[/{token}]. */
  hooks: HookRouterDeps;
  preview: PreviewRouterDeps;
  /** GET /api/files/{id}/{filename}: files sent with messages. */
  files?: FilesRouterDeps;
  /** POST /api/public/token-kind. */
  tokenKind: TokenKindRouterDeps;
  console: ConsoleRouterDeps;
  /** /healthz, /readyz and /metrics. */
  ops: OpsRouterDeps;
  /** Herald's version, for the OpenAPI document. */
  version: string;
  /** Express 'trust proxy' (HERALD_TRUST_PROXY). */
  trustProxy: string[] | false;
  /** Built console (renderer/dist); served with a history-mode fallback when present. */
  rendererDir?: string;
  /** The address Herald listens on, HERALD_ALLOWED_HOSTS and HERALD_CORS_ORIGINS. */
  guards: { listenHost: string; allowedHosts: string[]; corsOrigins: string[] };
  /** One log line per request; HERALD_ACCESS_LOG=0 turns it off (the default reads it). */
  accessLog?: boolean;
  /** Watches for a trusted proxy's name while publicBaseUrl is unset (ProxyHostNotice). */
  proxyHostWatch?: RequestHandler | null;
}

/** Builds the Express app; it never listens (startServer does). */
export function createApp(deps: AppDeps): Express {
  const { rendererDir, guards } = deps;
  const app = express();
  app.disable('x-powered-by');
  // Answers are API envelopes and console data that change from one request to the next; the
  // console's files keep their own ETags (consoleFiles, through send).
  app.disable('etag');
  app.set('trust proxy', deps.trustProxy);
  // First, so that every request is logged, those the guards below refuse included.
  if (deps.accessLog ?? accessLogEnabled()) app.use(accessLog);
  const securityHeaders: RequestHandler = (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // Resolving the host names of links in a message would also tell their DNS server it was read.
    res.setHeader('X-DNS-Prefetch-Control', 'off');
    res.setHeader('X-Frame-Options', 'DENY');
    next();
  };
  // Every request passes these first, in this order.
  const front = [
    securityHeaders,
    createHostAllowList(guards),
    rejectMalformedPath,
    ...(deps.proxyHostWatch ? [deps.proxyHostWatch] : []),
  ];
  const sendCrossSite = createCrossSiteGuard({
    what: 'the send API',
    corsOrigins: guards.corsOrigins,
    corsHint: true,
  });
  const sendRoutes = createSendRoutes(deps.send);
  // The busiest requests, POSTs to the send paths spelt exactly so, run the very handlers the
  // layers below would run for them, in the same order, without the router matching every
  // layer's path on the way (a fifth of a send's JavaScript). Every other spelling (a query
  // string, a trailing slash, another case) and every other request takes the layers below.
  const sendChains = new Map<string, RequestHandler[]>([
    [V1_SEND_PATH, [...front, sendCrossSite, ...sendRoutes.v1]],
    [V2_SEND_PATH, [...front, sendCrossSite, ...sendRoutes.v2]],
  ]);
  app.use((req, res, next) => {
    const chain = req.method === 'POST' ? sendChains.get(req.url) : undefined;
    if (chain === undefined) next();
    else runHandlers(chain, req, res, next);
  });
  app.use(front);
  app.use([V1_SEND_PATH, V2_SEND_PATH], sendCrossSite);
  // The send routes come before the other guards and routers: those are mounted on other
  // paths, and the busiest route need not be matched against them.
  app.use(createSendRouter(sendRoutes));
  app.use(createOpsRouter(deps.ops));
  // Hooks are sends too: the same Host allow-list (in front) and cross-site rules.
  app.use(
    HOOKS_BASE,
    createCrossSiteGuard({
      what: 'the hooks',
      corsOrigins: guards.corsOrigins,
      corsHint: true,
    }),
    createHookRouter({ files: deps.send, ...deps.hooks }),
  );
  const consoleCrossSite = createCrossSiteGuard({
    what: 'the console API',
    corsOrigins: [],
    corsHint: false,
  });
  // The provider's redirect back to the OpenID Connect callback is a cross-site navigation.
  const consoleGuard: RequestHandler = (req, res, next) =>
    isSsoNavigation(req) ? next() : consoleCrossSite(req, res, next);
  app.use('/api/console', consoleGuard);
  // Share links are opened as top-level navigations to the console page, whose fetch is
  // same-origin: other sites' pages have no business calling this either.
  app.use(
    '/api/public',
    createCrossSiteGuard({ what: 'the preview API', corsOrigins: [], corsHint: false }),
  );
  app.use(createPreviewRouter(deps.preview));
  if (deps.files) app.use(createFilesRouter(deps.files));
  app.use(createTokenKindRouter(deps.tokenKind));
  app.use('/api/console', createConsoleRouter(deps.console));
  app.get('/api/openapi.json', (_req, res) => {
    res.json(openApiDocument(deps.version));
  });
  app.all('/api/{*rest}', notFoundHandler);
  if (rendererDir && existsSync(join(rendererDir, 'index.html'))) {
    app.use(consoleFiles(rendererDir));
  } else {
    app.get('/', (_req, res) => {
      res
        .type('text/plain')
        .send(
          'Herald is running. The console is not built: run `npm run build:renderer`. The API is at /api.\n',
        );
    });
  }
  app.use(notFoundHandler);
  app.use(translateClientErrors);
  app.use(errorHandler);
  return app;
}
