/**
 * The hot path in the dialect of the executor it is given: hot-path.ts on SQLite,
 * postgres/hot-path-postgres.ts on PostgreSQL. Both export the same functions with the same
 * signatures; callers import from here and never choose. A function added to one module must
 * be added to the other: the `satisfies` below fails the build otherwise.
 */
import * as sqlite from './hot-path';
import * as postgres from './hot-path-postgres';
import type { SqlExecutor } from '../../db/sql';

export type {
  ClaimedDelivery,
  DeliveryRow,
  NewDelivery,
  NewSend,
  OutcomeRecord,
} from './hot-path';

type HotPath = Omit<typeof sqlite, 'default'>;
// Same names, same signatures: a PostgreSQL twin that drifts stops the build here.
postgres satisfies HotPath;

const on = (sql: SqlExecutor): HotPath => (sql.dialect === 'postgres' ? postgres : sqlite);

export const insertSends: HotPath['insertSends'] = (sql, ...a) => on(sql).insertSends(sql, ...a);
export const insertDeliveries: HotPath['insertDeliveries'] = (sql, ...a) =>
  on(sql).insertDeliveries(sql, ...a);
export const claimDue: HotPath['claimDue'] = (sql, ...a) => on(sql).claimDue(sql, ...a);
export const recordOutcomes: HotPath['recordOutcomes'] = (sql, ...a) =>
  on(sql).recordOutcomes(sql, ...a);
export const rollUpSends: HotPath['rollUpSends'] = (sql, ...a) => on(sql).rollUpSends(sql, ...a);
export const requeue: HotPath['requeue'] = (sql, ...a) => on(sql).requeue(sql, ...a);
export const defer: HotPath['defer'] = (sql, ...a) => on(sql).defer(sql, ...a);
export const recoverClaims: HotPath['recoverClaims'] = (sql, ...a) =>
  on(sql).recoverClaims(sql, ...a);
export const deliveryRows: HotPath['deliveryRows'] = (sql, ...a) => on(sql).deliveryRows(sql, ...a);
export const nextDueAt: HotPath['nextDueAt'] = (sql) => on(sql).nextDueAt(sql);
export const countsBySend: HotPath['countsBySend'] = (sql, ...a) => on(sql).countsBySend(sql, ...a);
export const recordStoredAttempts: HotPath['recordStoredAttempts'] = (sql, ...a) =>
  on(sql).recordStoredAttempts(sql, ...a);
