import { defineStore } from 'pinia';

import type { InstanceInput, InstancePatch } from '@contract';

import { instancesApi } from '../api/instances-api';
import { tasksApi } from '../api/tasks-api';
import { templatesApi } from '../api/templates-api';

/** A task (V1) or a template (V2): what sends, through its instances, with its token. */
export interface Owner {
  kind: 'task' | 'template';
  id: number;
}

/**
 * What tasks and templates have alike, by owner: their detail, their token and its rotation,
 * the switch for an imported Message Nest token, and their instances (channel bindings). The
 * one place that picks the task or the template route, so the instance editor and the interface
 * dialog work on both without asking which.
 */
export const useOwnersStore = defineStore('owners', () => {
  const api = (owner: Owner) => (owner.kind === 'task' ? tasksApi : templatesApi);

  const detail = (owner: Owner) => api(owner).get(owner.id);
  const token = (owner: Owner) => api(owner).token(owner.id);
  const rotateToken = (owner: Owner) => api(owner).rotateToken(owner.id);
  const setAcceptLegacyToken = (owner: Owner, accept: boolean) =>
    api(owner).setAcceptLegacyToken(owner.id, accept);

  const instances = (owner: Owner) => api(owner).instances(owner.id);
  const addInstance = (owner: Owner, input: InstanceInput) =>
    api(owner).addInstance(owner.id, input);
  const updateInstance = (id: number, patch: InstancePatch) => instancesApi.update(id, patch);
  const removeInstance = (id: number) => instancesApi.remove(id);

  return {
    detail,
    token,
    rotateToken,
    setAcceptLegacyToken,
    instances,
    addInstance,
    updateInstance,
    removeInstance,
  };
});
