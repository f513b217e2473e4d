import { defineStore } from 'pinia';

import type { DigestRuleBody } from '@contract';

import { digestsApi } from '../api/digests-api';

type Kind = 'task' | 'template';

/** A task's or template's digest rule, as the digest dialog reads, saves and removes it. */
export const useDigestsStore = defineStore('digests', () => {
  const get = (kind: Kind, id: number) =>
    kind === 'task' ? digestsApi.taskGet(id) : digestsApi.templateGet(id);
  const save = (kind: Kind, id: number, body: DigestRuleBody) =>
    kind === 'task' ? digestsApi.taskPut(id, body) : digestsApi.templatePut(id, body);
  const remove = (kind: Kind, id: number) =>
    kind === 'task' ? digestsApi.taskRemove(id) : digestsApi.templateRemove(id);
  return { get, save, remove };
});
