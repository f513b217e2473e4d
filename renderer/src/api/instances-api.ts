import type { consoleRoutes, InstancePatch } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.instances;

/** Instances once created, whichever task or template owns them. */
export const instancesApi = {
  update: (id: number, patch: InstancePatch) =>
    call<Routes['update']>('PATCH', `/instances/${id}`, { body: patch }),
  remove: (id: number) => call<Routes['remove']>('DELETE', `/instances/${id}`),
};
