import { literal, type Sequelize } from 'sequelize';
import type { Literal } from 'sequelize/lib/utils';

/**
 * A substring match on one or more columns that treats % and _ in the search as plain
 * characters (LIKE … ESCAPE works the same on SQLite and PostgreSQL).
 */
export function containsAny(sequelize: Sequelize, columns: string[], q: string): Literal {
  const pattern = sequelize.escape(`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const clauses = columns.map((c) => `${c} LIKE ${pattern} ESCAPE '\\'`);
  return literal(`(${clauses.join(' OR ')})`);
}
