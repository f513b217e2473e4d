import type { consoleRoutes, DigestRuleBody } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.digests;

/** Tasks', templates' and instances' digest rules (issue 46 §2): read, set, removed. */
export const digestsApi = {
  taskGet: (id: number) => call<Routes['taskGet']>('GET', `/tasks/${id}/digest`),
  taskPut: (id: number, body: DigestRuleBody) =>
    call<Routes['taskPut']>('PUT', `/tasks/${id}/digest`, { body }),
  taskRemove: (id: number) => call<Routes['taskRemove']>('DELETE', `/tasks/${id}/digest`),
  templateGet: (id: number) => call<Routes['templateGet']>('GET', `/templates/${id}/digest`),
  templatePut: (id: number, body: DigestRuleBody) =>
    call<Routes['templatePut']>('PUT', `/templates/${id}/digest`, { body }),
  templateRemove: (id: number) =>
    call<Routes['templateRemove']>('DELETE', `/templates/${id}/digest`),
  instanceGet: (id: number) => call<Routes['instanceGet']>('GET', `/instances/${id}/digest`),
  instancePut: (id: number, body: DigestRuleBody) =>
    call<Routes['instancePut']>('PUT', `/instances/${id}/digest`, { body }),
  instanceRemove: (id: number) =>
    call<Routes['instanceRemove']>('DELETE', `/instances/${id}/digest`),
};
