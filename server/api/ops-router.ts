import { timingSafeEqual } from 'node:crypto';

import { Router, type Request, type Response } from 'express';

import type { MetricsSettings } from '../config/metrics-settings';
import { errorMessage } from '../lib/errors';
import { createLogger } from '../lib/logger';
import { notFoundHandler } from './middleware/error-handler';
import type { HeraldMetrics } from '../features/ops/metrics';
import type { Readiness } from '../features/ops/readiness';

const log = createLogger('ops');

export interface OpsRouterDeps {
  readiness: Readiness;
  /** Null when /metrics is off (HERALD_METRICS unset). */
  metrics: HeraldMetrics | null;
  metricsSettings: MetricsSettings;
}

/** Probes and scrapers poll; no proxy or browser should keep an old answer. */
function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
}

function bearerMatches(req: Request, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer (.+)$/i.exec(header);
  if (!match) return false;
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * `/healthz`, `/readyz` and `/metrics`, for load balancers, orchestrators and Prometheus. No
 * login (a probe has none), so they answer only what they must: a status word, and for
 * `/metrics` counts and timings (no names, addresses, tokens or message content). They sit
 * behind the host allow-list like every route.
 */
export function createOpsRouter(deps: OpsRouterDeps): Router {
  const router = Router();

  // Alive: this process answers HTTP. Nothing else is checked, so a restart is never
  // triggered by a database that is only slow.
  router.get('/healthz', (_req, res) => {
    noStore(res);
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    noStore(res);
    const answer = await deps.readiness.check();
    if (answer.ready) res.json({ status: 'ready' });
    else res.status(503).json({ status: 'not ready', reason: answer.reason });
  });

  const { metrics, metricsSettings } = deps;
  if (!metrics) {
    // Off: the same 404 as any unknown path, not the console page the fallback would serve.
    router.get('/metrics', notFoundHandler);
    return router;
  }
  router.get('/metrics', async (req, res) => {
    noStore(res);
    if (metricsSettings.token !== null && !bearerMatches(req, metricsSettings.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="herald-metrics"');
      res
        .status(401)
        .type('text/plain')
        .send('metrics need "Authorization: Bearer <HERALD_METRICS_TOKEN>"\n');
      return;
    }
    try {
      const { contentType, body } = await metrics.exposition();
      res.setHeader('Content-Type', contentType);
      res.send(body);
    } catch (err) {
      log.error(`collecting metrics failed: ${errorMessage(err)}`);
      res.status(500).type('text/plain').send('collecting metrics failed\n');
    }
  });
  return router;
}
