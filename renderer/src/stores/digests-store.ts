import { defineStore } from 'pinia';

import type { DigestRuleBody } from '@contract';

import { digestsApi } from '../api/digests-api';

export type DigestOwner = 'task' | 'template' | 'instance';

/** A task's, template's or instance's digest rule, as the digest dialog reads and saves it. */
export const useDigestsStore = defineStore('digests', () => {
  const get = (kind: DigestOwner, id: number) =>
    ({
      task: digestsApi.taskGet,
      template: digestsApi.templateGet,
      instance: digestsApi.instanceGet,
    })[kind](id);
  const save = (kind: DigestOwner, id: number, body: DigestRuleBody) =>
    ({
      task: digestsApi.taskPut,
      template: digestsApi.templatePut,
      instance: digestsApi.instancePut,
    })[kind](id, body);
  const remove = (kind: DigestOwner, id: number) =>
    ({
      task: digestsApi.taskRemove,
      template: digestsApi.templateRemove,
      instance: digestsApi.instanceRemove,
    })[kind](id);
  return { get, save, remove };
});
