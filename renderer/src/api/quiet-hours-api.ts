import type {
  consoleRoutes,
  QueryOf,
  QuietHoursCreate,
  QuietHoursOwnerType,
  QuietHoursPatch,
} from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.quietHours;

/** Quiet hours (issue 46 §1): the rules of an instance, a channel or the signed-in person. */
export const quietHoursApi = {
  list: (ownerType: QuietHoursOwnerType, ownerId: number) =>
    call<Routes['list']>('GET', '/quiet-hours', { query: { ownerType, ownerId } }),
  create: (input: QuietHoursCreate) =>
    call<Routes['create']>('POST', '/quiet-hours', { body: input }),
  update: (id: number, input: QuietHoursPatch) =>
    call<Routes['update']>('PUT', `/quiet-hours/${id}`, { body: input }),
  remove: (id: number) => call<Routes['remove']>('DELETE', `/quiet-hours/${id}`),
  preview: (query: QueryOf<Routes['preview']>) =>
    call<Routes['preview']>('GET', '/quiet-hours/preview', { query }),
};
