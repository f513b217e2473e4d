import express, {
  Router,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';

import { HOOK_PRESETS, HOOKS_BASE, hookQuerySchema, hookRoutes, LIMITS } from '../../../contract';
import type { HookService } from '../../features/hooks/hook-service';
import type { HookHeaders, HookPreset } from '../../features/hooks/hook-preset';
import { sendEnvelope } from '../../lib/envelope';
import { AppError } from '../../lib/errors';
import { parseInput } from '../../lib/validation';
import { expressPath } from '../contract-route';
import {
  multipartSend,
  payloadBytes,
  stagedUploads,
  type MultipartSendDeps,
} from '../middleware/multipart-send';

/** What the hook routes use: the hook service (which sends through the send service). */
export interface HookRouterDeps {
  hooks: HookService;
  /** The generic hook takes files too (multipart, issue 43 §2): staged here, limits from settings. */
  files?: MultipartSendDeps;
}

/** The raw bytes of each request's body, which a signature is computed over. */
const rawBodies = new WeakMap<Request, Buffer>();

/** The preset each request's path named, once checked. */
const presets = new WeakMap<Request, HookPreset>();

const headersOf = (req: Request): HookHeaders =>
  Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : value,
    ]),
  );

/**
 * The key a repeated delivery is recognised by: an explicit Idempotency-Key, else the id the
 * sender gives each delivery and keeps when it retries or redelivers it (Standard Webhooks'
 * `webhook-id`, GitHub's `X-GitHub-Delivery`). An id longer than a key may be is not one.
 * None of these is signed here; once a Standard Webhooks signature is verified, its signed
 * `webhook-id` replaces whatever this chose (HookService), so a fresh key cannot replay it.
 */
function deliveryKey(req: Request): string | undefined {
  const explicit = req.get('Idempotency-Key');
  if (explicit !== undefined) return explicit.trim();
  const id = (req.get('webhook-id') ?? req.get('X-GitHub-Delivery'))?.trim();
  return id && id.length <= LIMITS.idempotencyKeyChars ? id : undefined;
}

/** `Authorization: Bearer <token>`, the scheme's name in any case. */
function bearerToken(req: Request): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('Authorization') ?? '');
  if (!match) {
    // RFC 6750: a 401 to a Bearer request names the scheme it wants.
    req.res?.setHeader('WWW-Authenticate', 'Bearer');
    throw new AppError(
      401,
      'token: is required: send the template token as Authorization: Bearer <token>, or in the path (/api/hooks/{preset}/{token})',
    );
  }
  return match[1];
}

/**
 * POST /api/hooks/{preset}/{token} and POST /api/hooks/{preset} (the token as a Bearer
 * credential): a sender's own JSON becomes a V2 send (docs/hooks.md). Answers are V2's
 * envelope with the real HTTP status, whatever `sendApi.httpStatus` says: senders such as
 * GitHub and Alertmanager show it in their delivery logs and retry on it.
 */
export function createHookRouter(deps: HookRouterDeps): Router {
  const router = Router();

  // As on the send APIs, the body is read as JSON whatever Content-Type says, within the same
  // limit; `verify` keeps the bytes for the signature without reading the body twice.
  const json = express.json({
    limit: LIMITS.bodyBytes,
    type: () => true,
    strict: false,
    verify: (req, _res, buf) => {
      rawBodies.set(req as Request, buf);
    },
  });

  // Unknown presets are refused before the body is read.
  const presetOf: RequestHandler = (req, _res, next) => {
    const name = String(req.params.preset);
    const preset = deps.hooks.preset(name);
    if (!preset) {
      throw new AppError(
        404,
        `no such hook preset: ${name.slice(0, 100)} (use one of ${HOOK_PRESETS.join(', ')})`,
      );
    }
    presets.set(req, preset);
    next();
  };

  // A form body is read raw: `curl -d '{…}'` sends JSON labelled as a form, and GitHub's
  // "application/x-www-form-urlencoded" content type puts its JSON in a `payload` field.
  const raw = express.raw({ limit: LIMITS.bodyBytes, type: () => true });

  /** Passes a parser's error on, a too-large body as the 413 a hook sender understands. */
  const parsed =
    (next: NextFunction, then: () => void = () => next()) =>
    (err?: unknown) => {
      // A hook sender understands 413 (the send APIs answer 400, their documented limit rule).
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') {
        next(
          new AppError(413, `request body is larger than ${LIMITS.bodyBytes / 1024 / 1024} MiB`),
        );
        return;
      }
      if (err) next(err);
      else then();
    };

  const multipart = deps.files ? multipartSend(deps.files) : null;

  const readBody: RequestHandler = (req, res, next) => {
    // The generic hook's multipart form: payload_json is its body, and what its signature covers.
    if (multipart && req.is('multipart/form-data') && presets.get(req)?.name === 'generic') {
      multipart(req, res, (err?: unknown) => {
        if (err) return next(err);
        rawBodies.set(req, payloadBytes(req) ?? Buffer.alloc(0));
        next();
      });
      return;
    }
    if (!req.is('application/x-www-form-urlencoded')) {
      json(req, res, parsed(next));
      return;
    }
    raw(
      req,
      res,
      parsed(next, () => {
        const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        rawBodies.set(req, bytes);
        const text = bytes.toString('utf8');
        const body = jsonOf(text) ?? jsonOf(new URLSearchParams(text).get('payload'));
        if (body === undefined) {
          next(
            new AppError(
              400,
              'request body must be JSON, or a form whose payload field is JSON (GitHub: either Content type works)',
            ),
          );
          return;
        }
        req.body = body;
        next();
      }),
    );
  };

  const receive = (tokenOf: (req: Request) => string) => async (req: Request, res: Response) => {
    const preset = presets.get(req)!;
    const query = parseInput(hookQuerySchema, req.query);
    const token = tokenOf(req);
    const call = {
      preset,
      token,
      body: req.body as unknown,
      rawBody: rawBodies.get(req) ?? Buffer.alloc(0),
      headers: headersOf(req),
      query,
    };
    const answer = await deps.hooks.receive(call, {
      idempotencyKey: deliveryKey(req),
      uploads: stagedUploads(req),
    });
    sendEnvelope(res, answer.code, answer.msg, answer.data);
  };

  router.post(
    expressPath(hookRoutes.withToken, HOOKS_BASE),
    presetOf,
    readBody,
    receive((req) => String(req.params.token)),
  );
  router.post(expressPath(hookRoutes.bearer, HOOKS_BASE), presetOf, readBody, receive(bearerToken));
  return router;
}

/** The value a JSON text holds, or undefined when it is none (or there is no text). */
function jsonOf(text: string | null): unknown {
  if (text === null || text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
