/**
 * Herald's HTTP contract: the zod schemas of what the console, public and send routes take and
 * answer, shared by the server (which validates with them), the console (whose types are
 * `z.infer` of them) and the OpenAPI document (generated from them). Imports nothing but zod.
 */
export * from './channel-kinds/index';
export * from './common';
export * from './console/index';
export * from './control-chars';
export * from './envelope';
export * from './hooks/index';
export * from './limits';
export * from './placeholder-warnings';
export * from './priority';
export * from './public/preview';
export * from './public/token-kind';
export * from './route';
export * from './send/index';
