import { z } from 'zod';

import {
  CONSOLE_BASE,
  idParams,
  nameSchema,
  named,
  nothing,
  pageOf,
  pagingQuery,
  timestampSchema,
  tokenResponse,
} from '../common';
import { route } from '../route';
import { instanceCreateBody, instanceSchema } from './instances';

/** An imported task's or template's Message Nest credentials (null and false otherwise). */
export const messageNestCredentials = {
  legacyId: z.string().nullable(),
  /** Derived from legacyId as Message Nest derives it, so the administrator recognises it. */
  legacyToken: z.string().nullable(),
  /** Lets the Message Nest token (or id) send. */
  acceptLegacyToken: z.boolean(),
};

const acceptLegacyToken = z.boolean({ error: 'must be true or false' });

export const taskCreateBody = z
  .object({ name: nameSchema, acceptLegacyToken: acceptLegacyToken.optional() })
  .strict();
export type TaskCreate = z.input<typeof taskCreateBody>;

export const taskUpdateBody = z
  .object({ name: nameSchema, acceptLegacyToken })
  .partial()
  .strict()
  .refine((v) => v.name !== undefined || v.acceptLegacyToken !== undefined, {
    message: 'give name or acceptLegacyToken',
  });
export type TaskUpdate = z.input<typeof taskUpdateBody>;

export const taskSchema = named(
  'Task',
  z.strictObject({
    id: z.number().int().positive(),
    name: z.string(),
    instanceCount: z.number().int().min(0),
    ...messageNestCredentials,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
);
export type Task = z.infer<typeof taskSchema>;
/** What a task and a template carry of their Message Nest origin. */
export type MessageNestCredentials = Pick<Task, keyof typeof messageNestCredentials>;

export const taskDetailSchema = named(
  'TaskDetail',
  taskSchema.extend({ instances: z.array(instanceSchema) }),
);
export type TaskDetail = z.infer<typeof taskDetailSchema>;

/** `?name=` filters by substring. */
export const nameFilterQuery = pagingQuery.extend({ name: z.string().optional() });

export const taskRoutes = {
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/tasks`,
    summary: 'List tasks, newest first (?name= filters)',
    query: nameFilterQuery,
    response: pageOf(taskSchema),
  }),
  create: route({
    method: 'post',
    path: `${CONSOLE_BASE}/tasks`,
    summary: 'Create a task',
    body: taskCreateBody,
    response: taskSchema,
  }),
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/tasks/{id}`,
    summary: 'Read a task with its instances',
    params: idParams,
    response: taskDetailSchema,
  }),
  update: route({
    method: 'put',
    path: `${CONSOLE_BASE}/tasks/{id}`,
    summary: 'Rename a task, or let its Message Nest token send',
    params: idParams,
    body: taskUpdateBody,
    response: taskDetailSchema,
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/tasks/{id}`,
    summary: 'Delete a task and its instances; its token then answers 404',
    params: idParams,
    response: nothing,
  }),
  token: route({
    method: 'get',
    path: `${CONSOLE_BASE}/tasks/{id}/token`,
    summary: 'The task token',
    params: idParams,
    response: tokenResponse,
  }),
  rotateToken: route({
    method: 'post',
    path: `${CONSOLE_BASE}/tasks/{id}/token/rotate`,
    summary: 'Rotate the task token (the old one stops working)',
    params: idParams,
    response: tokenResponse,
  }),
  instances: route({
    method: 'get',
    path: `${CONSOLE_BASE}/tasks/{id}/instances`,
    summary: 'List the instances of a task',
    params: idParams,
    response: z.array(instanceSchema),
  }),
  addInstance: route({
    method: 'post',
    path: `${CONSOLE_BASE}/tasks/{id}/instances`,
    summary: 'Add an instance to a task',
    params: idParams,
    body: instanceCreateBody,
    response: instanceSchema,
  }),
};
