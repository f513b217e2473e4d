import { z } from 'zod';

import { CONSOLE_BASE, named, pageOf, pagingQuery, timestampSchema } from '../common';
import { route } from '../route';

/**
 * One field of a change: its value before and after (null where it did not exist), or, for a
 * secret (a channel's secrets, a proxy password, a hook secret, a token), only that it changed.
 * Nested settings and channel config fields are named by their path: `config.webhookUrl`.
 */
export const auditChangeSchema = named(
  'AuditChange',
  z.union([
    z.strictObject({ field: z.string(), before: z.unknown(), after: z.unknown() }),
    z.strictObject({ field: z.string(), changed: z.literal(true) }),
  ]),
);
export type AuditChange = z.infer<typeof auditChangeSchema>;

export { AUDIT_ACTIONS, type AuditAction } from '../audit-actions';

export const auditEntrySchema = named(
  'AuditEntry',
  z.strictObject({
    id: z.number().int(),
    at: timestampSchema,
    /** Who: the user's id (null for the command line and failed sign-ins) and name. */
    userId: z.number().int().nullable(),
    username: z.string(),
    /** From where: the address (behind HERALD_TRUST_PROXY, the client's) and user agent. */
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    /** What: `channel.update`, `template.rotate-token`, `auth.sign-in`… (docs/console-api.md). */
    action: z.string(),
    targetType: z.string(),
    targetId: z.string().nullable(),
    targetName: z.string().nullable(),
    changes: z.array(auditChangeSchema),
    /**
     * The names, when the entry was written, of what it refers to by id (`{"template:1":
     * "Nightly", "channel:2": "Ops"}`): an instance's template or task and channel, a
     * schedule's source, the ids among `changes`. Kept so the entry reads the same after they
     * are renamed or deleted; `{}` for entries written before Herald kept them.
     */
    names: z.record(z.string(), z.string()),
  }),
);
export type AuditEntry = z.infer<typeof auditEntrySchema>;

const queryTime = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO date or time')
  .transform((s) => new Date(s))
  .optional();

export const auditQuery = pagingQuery.extend({
  /** Part of the target's name, the action or the user's name. */
  q: z.string().max(200).optional(),
  /** The user's name, exactly (`cli` for the command line). */
  user: z.string().max(200).optional(),
  /** An action, exactly (`channel.update`). */
  action: z.string().max(100).optional(),
  /** From and to, ISO times (both included). */
  from: queryTime,
  to: queryTime,
});
export type AuditQuery = z.input<typeof auditQuery>;

export const auditRoutes = {
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/audit`,
    summary: 'The audit log, newest first (administrators only; no route edits or deletes it)',
    query: auditQuery,
    /** Above 10,000 matches the total stops there (`totalIsCapped`), as in the send log. */
    response: pageOf(auditEntrySchema).extend({ totalIsCapped: z.boolean() }),
  }),
};
