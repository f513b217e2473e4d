import type { NextFunction, Request, Response } from 'express';

import { controlCharMessage, findControlChar } from '../../../contract';
import { AppError } from '../../lib/errors';

/** No console body is nested this deep; deeper JSON is an attack on recursive code. */
export const MAX_JSON_DEPTH = 32;

/** A path with a broken %-escape cannot be routed; say so instead of failing deep in a router. */
export function rejectMalformedPath(req: Request, _res: Response, next: NextFunction): void {
  try {
    decodeURIComponent(req.path);
  } catch {
    throw new AppError(
      400,
      `the path has a malformed %-escape: ${req.path.slice(0, 200)} (escape % as %25 and use %XX with two hex digits of valid UTF-8)`,
    );
  }
  next();
}

const fieldName = (path: (string | number)[]) => (path.length ? path.join('.') : 'request body');

/**
 * The first problem of a parsed JSON body: nesting beyond MAX_JSON_DEPTH or a string (value or
 * key) with a control character. Walks without recursion so no depth can overflow the stack.
 */
export function jsonBodyProblem(body: unknown): string | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: body, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const found = findControlChar(value);
      if (found) return `${fieldName(path)}: ${controlCharMessage(found)}`;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (path.length >= MAX_JSON_DEPTH) {
      return `${fieldName(path.slice(0, 3))}…: JSON is nested more than ${MAX_JSON_DEPTH} levels deep; no Herald request needs that`;
    }
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: [...path, i] }));
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const found = findControlChar(key);
      if (found) return `${fieldName(path)}: a key ${controlCharMessage(found)}`;
      stack.push({ value: item, path: [...path, key] });
    }
  }
  return undefined;
}

/** Console API bodies (after express.json): refused whole, with the field named, before any route. */
export function checkJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const problem = req.body === undefined ? undefined : jsonBodyProblem(req.body);
  if (problem) throw new AppError(400, problem);
  next();
}

interface ClientFault extends Error {
  code?: string;
}

/**
 * A body that does not decompress: zlib's error reaches the handler untyped and would answer
 * 500, though the client sent the broken bytes.
 */
export function translateClientErrors(
  err: unknown,
  req: Request,
  _res: Response,
  next: NextFunction,
): void {
  const fault = err as ClientFault | undefined;
  // zlib (gzip, deflate) errors are Z_*; brotli's are ERR__ERROR_* ("Decompression failed").
  if (
    fault instanceof Error &&
    typeof fault.code === 'string' &&
    /^(Z_[A-Z_]+|ERR__ERROR_[A-Z0-9_]+)$/.test(fault.code)
  ) {
    const encoding = req.headers['content-encoding'] ?? 'compressed';
    next(
      new AppError(
        400,
        `request body is not valid ${encoding} data (${fault.message}): send it uncompressed or compress it correctly`,
      ),
    );
    return;
  }
  next(err);
}
