import type { Paging } from '../../lib/paging';

/** A list query's page, with the row offset the services read from. */
export function pagingOf(query: { page: number; pageSize: number }): Paging {
  return { page: query.page, pageSize: query.pageSize, offset: (query.page - 1) * query.pageSize };
}
