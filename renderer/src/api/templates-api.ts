import type {
  consoleRoutes,
  InstanceInput,
  PreviewRequest,
  QueryOf,
  TemplateCreate,
  TemplateUpdate,
} from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.templates;

/** V2 templates, their tokens, previews and instances. */
export const templatesApi = {
  list: (query: QueryOf<Routes['list']> = {}) =>
    call<Routes['list']>('GET', '/templates', { query }),
  get: (id: number) => call<Routes['get']>('GET', `/templates/${id}`),
  create: (input: TemplateCreate) => call<Routes['create']>('POST', '/templates', { body: input }),
  update: (id: number, input: TemplateUpdate) =>
    call<Routes['update']>('PUT', `/templates/${id}`, { body: input }),
  remove: (id: number) => call<Routes['remove']>('DELETE', `/templates/${id}`),
  setAcceptMessageNestToken: (id: number, acceptLegacyToken: boolean) =>
    call<Routes['update']>('PUT', `/templates/${id}`, { body: { acceptLegacyToken } }),
  token: (id: number) => call<Routes['token']>('GET', `/templates/${id}/token`),
  rotateToken: (id: number) => call<Routes['rotateToken']>('POST', `/templates/${id}/token/rotate`),
  /** Renders a saved template (id) or an unsaved draft (no id) with the values typed so far. */
  preview: (id: number | null, input: PreviewRequest) =>
    id
      ? call<Routes['preview']>('POST', `/templates/${id}/preview`, { body: input })
      : call<Routes['previewUnsaved']>('POST', '/templates/preview', { body: input }),
  instances: (id: number) => call<Routes['instances']>('GET', `/templates/${id}/instances`),
  addInstance: (id: number, input: InstanceInput) =>
    call<Routes['addInstance']>('POST', `/templates/${id}/instances`, { body: input }),
};
