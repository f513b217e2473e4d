import type { SendCredential } from '@contract';

/**
 * Whether a send came in with a Message Nest credential: an imported task's or template's old
 * token, or its old Message Nest id as task_id. On the wire these keep the names they were
 * published with, `legacy_token` and `legacy_task_id` (docs/architecture.md, Glossary).
 */
export function isMessageNestCredential(credential: SendCredential | null | undefined): boolean {
  return credential === 'legacy_token' || credential === 'legacy_task_id';
}
