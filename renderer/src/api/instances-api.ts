import type { Instance, InstancePatch } from '../data-types';
import { http } from './http-client';

/** Instances once created, whichever task or template owns them. */
export const instancesApi = {
  update: (id: number, patch: InstancePatch) => http.patch<Instance>(`/instances/${id}`, patch),
  remove: (id: number) => http.delete(`/instances/${id}`),
};
