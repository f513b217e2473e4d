import express, {
  Router,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';

import { LIMITS, sendRoutes } from '../../../contract';
import { answerAlways200, sendEnvelope } from '../../lib/envelope';
import { AppError } from '../../lib/errors';
import { parseInput } from '../../lib/validation';
import type { HeraldParts } from '../../parts';
import { plainV2Request } from '../../features/sending/plain-v2-request';
import { multipartSend, stagedUploads } from '../middleware/multipart-send';

/** What the send routes use: the send service, and the settings they answer by. */
export type SendRouterDeps = Pick<HeraldParts, 'settings' | 'sends' | 'dataDir'>;

/** Each send route's handlers, in the order they run. */
export interface SendRoutes {
  v1: RequestHandler[];
  v2: RequestHandler[];
}

export const V1_SEND_PATH = sendRoutes.v1.path;
export const V2_SEND_PATH = sendRoutes.v2.path;

/**
 * POST /api/v1/message/send and POST /api/v2/message/send, as a router: the contract's send
 * routes (contract/send), their bodies parsed with its schemas. Not registered through
 * contractRoutes: the busiest requests skip the router (app.ts) and V2 parses its usual
 * requests without zod first (plain-v2-request.ts).
 */
export function createSendRouter(routes: SendRoutes): Router {
  const router = Router();
  router.post(V1_SEND_PATH, ...routes.v1);
  router.post(V2_SEND_PATH, ...routes.v2);
  return router;
}

/** The handlers of the two send routes (httpStatus, body parser, the send itself). */
export function createSendRoutes(deps: SendRouterDeps): SendRoutes {
  const { sends } = deps;
  // Scripts often forget the Content-Type header (curl -d sends form encoding): the body is
  // read as JSON whatever the header says, since these endpoints only take JSON.
  const json = express.json({ limit: LIMITS.bodyBytes, type: () => true, strict: false });

  const bodyObject = (req: Request): Record<string, unknown> => {
    if (
      req.body === undefined ||
      req.body === null ||
      typeof req.body !== 'object' ||
      Array.isArray(req.body)
    ) {
      throw new AppError(400, 'request body must be a JSON object');
    }
    return req.body as Record<string, unknown>;
  };

  // First on both routes, so a body that fails to parse is answered the same way. The guards
  // in front (Host allow-list, cross-site) keep their real status: they refuse browsers and
  // misrouted requests before the send API is reached.
  const httpStatus = (_req: Request, res: Response, next: NextFunction) => {
    if (deps.settings.get().sendApi.httpStatus === 'always200') answerAlways200(res);
    next();
  };

  const idempotencyKey = (req: Request) => {
    const value = req.get('Idempotency-Key');
    return value === undefined ? undefined : value.trim();
  };

  // The service resolves, counts, keys and sends; a route parses the body and writes the answer.
  const sendV1 = async (req: Request, res: Response) => {
    const body = parseInput(sendRoutes.v1.body, bodyObject(req));
    const answer = await sends.sendV1(body, {
      idempotencyKey: idempotencyKey(req),
      uploads: stagedUploads(req),
    });
    sendEnvelope(res, answer.code, answer.msg, answer.data);
  };

  const sendV2 = async (req: Request, res: Response) => {
    const input = bodyObject(req);
    const body = plainV2Request(input) ?? parseInput(sendRoutes.v2.body, input);
    const answer = await sends.sendV2(body, {
      idempotencyKey: idempotencyKey(req),
      uploads: stagedUploads(req),
    });
    sendEnvelope(res, answer.code, answer.msg, answer.data);
  };

  // multipart/form-data (payload_json and files[], issue 43 §2) becomes the same JSON body,
  // its files staged; any other body goes on to the JSON parser as before.
  const multipart = multipartSend(deps);
  return {
    v1: [httpStatus, multipart, json, sendV1],
    v2: [httpStatus, multipart, json, sendV2],
  };
}
