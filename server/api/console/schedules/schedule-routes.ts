import { z } from 'zod';

import { CONSOLE_BASE, idParams, nameFilterQuery, nothing, route } from '../../../../contract';
import {
  previewQuerySchema,
  scheduleCreateSchema,
  schedulePatchSchema,
} from '../../../features/schedules/schedule-schemas';

/** A schedule's answer is not described yet. */
const schedule = z.unknown();

/**
 * The scheduled-message routes, for the OpenAPI document only, until their schemas move into
 * contract/console/schedules.ts (server/features/schedules is being reworked): the requests
 * are checked with features/schedules/schedule-schemas.ts by schedule-router.ts; the answers are
 * not described yet. test/integration/console-contract.test.ts holds this table to the router.
 */
export const scheduleRoutes = {
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/schedules`,
    summary: 'List scheduled messages (?name= filters)',
    query: nameFilterQuery,
    response: z.unknown(),
  }),
  create: route({
    method: 'post',
    path: `${CONSOLE_BASE}/schedules`,
    summary: 'Create a scheduled message',
    body: scheduleCreateSchema,
    response: schedule,
  }),
  preview: route({
    method: 'get',
    path: `${CONSOLE_BASE}/schedules/preview`,
    summary: 'The next run times of a cron expression (?cron=&timezone=&count=)',
    query: previewQuerySchema,
    response: z.unknown(),
  }),
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/schedules/{id}`,
    summary: 'Read a scheduled message',
    params: idParams,
    response: schedule,
  }),
  update: route({
    method: 'put',
    path: `${CONSOLE_BASE}/schedules/{id}`,
    summary: 'Update a scheduled message',
    params: idParams,
    body: schedulePatchSchema,
    response: schedule,
  }),
  patch: route({
    method: 'patch',
    path: `${CONSOLE_BASE}/schedules/{id}`,
    summary: 'Update a scheduled message (the same as PUT)',
    params: idParams,
    body: schedulePatchSchema,
    response: schedule,
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/schedules/{id}`,
    summary: 'Delete a scheduled message',
    params: idParams,
    response: nothing,
  }),
  run: route({
    method: 'post',
    path: `${CONSOLE_BASE}/schedules/{id}/run`,
    summary: 'Send a scheduled message now',
    params: idParams,
    response: schedule,
  }),
};
