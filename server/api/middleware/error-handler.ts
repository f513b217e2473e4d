import type { NextFunction, Request, Response } from 'express';

import { LIMITS } from '../../../contract';
import { isDatabaseUnavailable } from '../../lib/database-errors';
import { sendEnvelope } from '../../lib/envelope';
import { AppError, errorMessage } from '../../lib/errors';
import { createLogger } from '../../lib/logger';

const log = createLogger('http');

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** The one place an error becomes a response: always the envelope, status equal to code. */
export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (err instanceof AppError) {
    sendEnvelope(res, err.code, err.message, err.data);
    return;
  }
  const bp = err as BodyParserError;
  if (bp?.type === 'entity.parse.failed') {
    sendEnvelope(res, 400, `request body is not valid JSON: ${bp.message}`, null);
    return;
  }
  if (bp?.type === 'entity.too.large') {
    sendEnvelope(
      res,
      400,
      `request body is larger than ${LIMITS.bodyBytes / 1024 / 1024} MiB`,
      null,
    );
    return;
  }
  if (bp?.type === 'encoding.unsupported' || bp?.type === 'charset.unsupported') {
    sendEnvelope(res, 400, `request body encoding is not supported: ${bp.message}`, null);
    return;
  }
  if (bp?.type === 'request.aborted') {
    sendEnvelope(res, 400, 'request was aborted by the client', null);
    return;
  }
  if (isDatabaseUnavailable(err)) {
    log.warn(`${req.method} ${req.originalUrl}: the database is unavailable: ${errorMessage(err)}`);
    res.setHeader('Retry-After', '5');
    sendEnvelope(
      res,
      503,
      'the database is unavailable; nothing was stored: try again shortly',
      null,
    );
    return;
  }
  log.error(
    `${req.method} ${req.originalUrl}: ${errorMessage(err)}`,
    err instanceof Error ? err.stack : undefined,
  );
  sendEnvelope(res, 500, 'internal server error', null);
}

export function notFoundHandler(req: Request, res: Response): void {
  sendEnvelope(res, 404, `no such endpoint: ${req.method} ${req.path}`, null);
}
