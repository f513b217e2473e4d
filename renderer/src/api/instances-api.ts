import { http } from './http-client';
import type { Instance, InstancePatch } from './types';

/** Instances once created, whichever task or template owns them. */
export const instancesApi = {
  update: (id: number, patch: InstancePatch) => http.patch<Instance>(`/instances/${id}`, patch),
  remove: (id: number) => http.delete(`/instances/${id}`),
};
