import { z } from 'zod';

import { parseInput } from './validation';

const pagingSchema = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});

export interface Paging {
  page: number;
  pageSize: number;
  offset: number;
}

export function parsePaging(query: Record<string, unknown>): Paging {
  const { page, pageSize } = parseInput(pagingSchema, {
    page: query.page,
    pageSize: query.pageSize,
  });
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** The console's list shape: `{items, total, page, pageSize}`. */
export function pageOf<T>(items: T[], total: number, paging: Paging) {
  return { items, total, page: paging.page, pageSize: paging.pageSize };
}
