/**
 * The part of node-postgres (`pg`) that Herald uses. @types/pg is not installed; this
 * declares only what server/db/postgres and the test helpers call.
 */
declare module 'pg' {
  export interface QueryConfig {
    name?: string;
    text: string;
    values?: unknown[];
  }
  export interface QueryResult<R = Record<string, unknown>> {
    rows: R[];
    rowCount: number | null;
  }
  interface Queryable {
    query<R = Record<string, unknown>>(
      config: string | QueryConfig,
      values?: unknown[],
    ): Promise<QueryResult<R>>;
  }
  export interface Notification {
    channel: string;
    payload?: string;
  }
  export interface ClientConfig {
    connectionString?: string;
    connectionTimeoutMillis?: number;
    /** Startup options, as `-c name=value …`. */
    options?: string;
    types?: { getTypeParser: typeof types.getTypeParser };
  }
  export interface PoolConfig extends ClientConfig {
    max?: number;
    idleTimeoutMillis?: number;
  }
  export class Client implements Queryable {
    constructor(config?: ClientConfig | string);
    connect(): Promise<void>;
    end(): Promise<void>;
    query<R = Record<string, unknown>>(
      config: string | QueryConfig,
      values?: unknown[],
    ): Promise<QueryResult<R>>;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'notification', listener: (message: Notification) => void): this;
    on(event: 'end', listener: () => void): this;
  }
  export interface PoolClient extends Client {
    release(err?: Error | boolean): void;
  }
  export class Pool implements Queryable {
    constructor(config?: PoolConfig);
    connect(): Promise<PoolClient>;
    end(): Promise<void>;
    query<R = Record<string, unknown>>(
      config: string | QueryConfig,
      values?: unknown[],
    ): Promise<QueryResult<R>>;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'connect', listener: (client: PoolClient) => void): this;
    readonly totalCount: number;
    readonly idleCount: number;
  }
  export namespace types {
    function getTypeParser(oid: number, format?: string): (value: string) => unknown;
  }
  const pg: { Pool: typeof Pool; Client: typeof Client; types: typeof types };
  export default pg;
}
