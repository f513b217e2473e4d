import { defineStore } from 'pinia';

import type { InstanceInput, InstancePatch } from '@contract';

import { instancesApi } from '../api/instances-api';
import { tasksApi } from '../api/tasks-api';
import { templatesApi } from '../api/templates-api';

/** A task (V1) or a template (V2): what sends, through its instances, with its token. */
export interface SourceRef {
  kind: 'task' | 'template';
  id: number;
}

/**
 * What tasks and templates have alike, by source: their detail, their token and its rotation,
 * the switch for an imported Message Nest token, and their instances (channel bindings). The
 * one place that picks the task or the template route, so the instance editor and the interface
 * dialog work on both without asking which.
 */
export const useSourcesStore = defineStore('sources', () => {
  const api = (source: SourceRef) => (source.kind === 'task' ? tasksApi : templatesApi);

  const detail = (source: SourceRef) => api(source).get(source.id);
  const token = (source: SourceRef) => api(source).token(source.id);
  const rotateToken = (source: SourceRef) => api(source).rotateToken(source.id);
  const setAcceptMessageNestToken = (source: SourceRef, accept: boolean) =>
    api(source).setAcceptMessageNestToken(source.id, accept);

  const instances = (source: SourceRef) => api(source).instances(source.id);
  const addInstance = (source: SourceRef, input: InstanceInput) =>
    api(source).addInstance(source.id, input);
  const updateInstance = (id: number, patch: InstancePatch) => instancesApi.update(id, patch);
  const removeInstance = (id: number) => instancesApi.remove(id);

  return {
    detail,
    token,
    rotateToken,
    setAcceptMessageNestToken,
    instances,
    addInstance,
    updateInstance,
    removeInstance,
  };
});
