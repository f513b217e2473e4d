import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';

import { CONSOLE_BASE, type RouteSpec } from '../../contract';
import { ok } from '../lib/envelope';
import { parseInput } from '../lib/validation';

/**
 * What may be handed to the envelope where the contract describes JSON: a Date goes out as its
 * ISO string, so it stands wherever the contract has a plain string (literal unions stay exact).
 */
export type Sendable<T> = T extends string
  ? string extends T
    ? string | Date
    : T
  : T extends number | boolean | null | undefined
    ? T
    : T extends readonly (infer Item)[]
      ? readonly Sendable<Item>[]
      : T extends object
        ? { [K in keyof T]: Sendable<T[K]> }
        : T;

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

/** A request's parts, parsed with the route's schemas. */
export interface RouteInput<S extends RouteSpec> {
  params: Parsed<S['params']>;
  query: Parsed<S['query']>;
  body: Parsed<S['body']>;
}

/** The envelope's data the handler answers, or nothing where it writes the answer itself. */
type Answer<S extends RouteSpec> = S['response'] extends z.ZodType
  ? Sendable<z.input<S['response']>>
  : void;

export type RouteHandler<S extends RouteSpec> = (
  input: RouteInput<S>,
  req: Request,
  res: Response,
) => Answer<S> | Promise<Answer<S>>;

/**
 * Runs around every contract route's handler below the middleware that installs it
 * (`aroundRoutes`): the console's audit recorder. `run` is the handler; what it answers is
 * passed on.
 */
export type RouteWrapper = (
  spec: RouteSpec,
  input: RouteInput<RouteSpec>,
  req: Request,
  run: () => Promise<unknown>,
) => Promise<unknown>;

const WRAPPER = 'heraldRouteWrapper';

/** Middleware that has the contract routes after it run through `wrapper`. */
export function aroundRoutes(wrapper: RouteWrapper): RequestHandler {
  return (_req, res, next) => {
    res.locals[WRAPPER] = wrapper;
    next();
  };
}

export interface ServeOptions {
  /** Middleware that runs before the request is parsed (a check that must come first, a raw body). */
  before?: RequestHandler[];
}

/** `/channels/{id}` → `/channels/:id`, below where the router is mounted. */
export function expressPath(spec: RouteSpec, mountedAt: string): string {
  if (!spec.path.startsWith(`${mountedAt}/`)) {
    throw new Error(`route ${spec.method.toUpperCase()} ${spec.path} is not under ${mountedAt}`);
  }
  return spec.path.slice(mountedAt.length).replace(/\{(\w+)\}/g, ':$1');
}

/** An empty query value (`?q=`) is the same as none, as the console's forms send them. */
function givenQuery(query: Request['query']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ''));
}

/**
 * Registers contract routes on a router mounted at `mountedAt`: each request's path
 * parameters, query and JSON body are parsed with the route's schemas (400 naming the field
 * otherwise) before the handler runs, and what the handler returns is answered as the
 * envelope's data. Routes that answer otherwise (a stream, a redirect) write `res` themselves.
 */
export function contractRoutes(
  router: Router,
  mountedAt: string,
  /** Middleware every route of this table runs first, made from its spec (the console's access check). */
  guard?: (spec: RouteSpec) => RequestHandler,
) {
  // A console route registered without its access check would answer every role.
  if (mountedAt === CONSOLE_BASE && !guard) {
    throw new Error(
      'console routes are registered with consoleRoutesOn (api/console/console-route.ts)',
    );
  }
  return function serve<const S extends RouteSpec>(
    spec: S,
    handler: RouteHandler<S>,
    options: ServeOptions = {},
  ): void {
    router[spec.method](
      expressPath(spec, mountedAt),
      ...(guard ? [guard(spec)] : []),
      ...(options.before ?? []),
      async (req: Request, res: Response) => {
        const input = {
          params: spec.params ? parseInput(spec.params, req.params) : undefined,
          query: spec.query ? parseInput(spec.query, givenQuery(req.query)) : undefined,
          body: spec.body ? parseInput(spec.body, req.body ?? {}) : undefined,
        } as RouteInput<S>;
        const run = async () => handler(input, req, res);
        const wrapper = res.locals[WRAPPER] as RouteWrapper | undefined;
        const data = wrapper ? await wrapper(spec, input, req, run) : await run();
        if (spec.response) ok(res, data);
      },
    );
  };
}
