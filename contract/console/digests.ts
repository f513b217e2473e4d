import { z } from 'zod';

import { CONSOLE_BASE, idParams, named, nothing } from '../common';
import { route } from '../route';

/*
 * Digests (issue 46 §2, docs/send-api.md "Digests"): a task or template that collects its sends
 * for a window and delivers them as one message per channel when it ends. The window is a
 * fixed length (windowMinutes, 1 to 1440) or a cron expression in an IANA zone; the server
 * checks the expression and the zone.
 */

export const digestRuleBody = z
  .object({
    /** A fixed window opened by the first collected send; null with a cron expression. */
    windowMinutes: z
      .number({ error: 'must be a whole number of minutes, 1 to 1440' })
      .int('must be a whole number of minutes, 1 to 1440')
      .min(1, 'must be at least 1 minute')
      .max(1440, 'must be at most 1440 minutes (a day)')
      .nullable()
      .default(null),
    /** Windows end at each time of this expression (five fields, or six with seconds). */
    cron: z.string({ error: 'must be a cron expression' }).trim().max(200).nullable().default(null),
    /** The cron expression's zone, and the zone the digest's times are written in. */
    timezone: z
      .string({ error: 'must be an IANA time zone name' })
      .trim()
      .min(1)
      .max(64)
      .nullable()
      .default(null),
    /** A send of this priority (1 … 5) or above skips the digest and goes at once; default 5. */
    priorityThreshold: z.number({ error: 'must be 1 to 5' }).int().min(1).max(5).default(5),
    /** How many titles the digest lists before "and N more"; default 20. */
    titleLimit: z.number({ error: 'must be 1 to 100' }).int().min(1).max(100).default(20),
  })
  .strict();
export type DigestRuleBody = z.input<typeof digestRuleBody>;

export const digestRuleSchema = named(
  'DigestRule',
  z.strictObject({
    windowMinutes: z.number().int().nullable(),
    cron: z.string().nullable(),
    timezone: z.string().nullable(),
    priorityThreshold: z.number().int(),
    titleLimit: z.number().int(),
  }),
);
export type DigestRule = z.infer<typeof digestRuleSchema>;

/** A task's, template's or instance's digest rule; null: it delivers every send at once. */
export const digestAnswer = z.strictObject({ rule: digestRuleSchema.nullable() });
export type DigestAnswer = z.infer<typeof digestAnswer>;

const routesOf = (owner: 'tasks' | 'templates' | 'instances', one: string) => ({
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/${owner}/{id}/digest`,
    summary: `The ${one}'s digest rule (null: it delivers every send at once)`,
    params: idParams,
    response: digestAnswer,
  }),
  put: route({
    method: 'put',
    path: `${CONSOLE_BASE}/${owner}/{id}/digest`,
    summary: `Collect the ${one}'s sends into digests: a window of windowMinutes, or cron in timezone`,
    params: idParams,
    body: digestRuleBody,
    response: digestAnswer,
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/${owner}/{id}/digest`,
    summary: `Stop collecting the ${one}'s sends (open digests still go out at their time)`,
    params: idParams,
    response: nothing,
  }),
});

const task = routesOf('tasks', 'task');
const template = routesOf('templates', 'template');
/** An instance's own rule: only its deliveries are collected, the task's other instances' go at once. */
const instance = routesOf('instances', 'instance');

export const digestRoutes = {
  taskGet: task.get,
  taskPut: task.put,
  taskRemove: task.remove,
  templateGet: template.get,
  templatePut: template.put,
  templateRemove: template.remove,
  instanceGet: instance.get,
  instancePut: instance.put,
  instanceRemove: instance.remove,
};
