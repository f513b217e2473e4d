import type { z } from 'zod';

import { AppError } from './errors';

/** Joins zod issues into one msg that names each field, e.g. "title: is required". */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/** Parses input with a schema or throws a 400 whose msg names the offending fields. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  prefix = '',
): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new AppError(400, `${prefix}${describeIssues(result.error)}`);
  return result.data;
}

/** Parses a positive integer route or query parameter. */
export function parseId(value: unknown, what = 'id'): number {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new AppError(400, `${what} must be a positive integer`);
  return n;
}
