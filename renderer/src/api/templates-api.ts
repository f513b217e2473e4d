import type {
  Instance,
  InstanceInput,
  Page,
  PreviewRequest,
  PreviewResult,
  Template,
  TemplateDetail,
  TemplateFields,
} from '../data-types';
import { http } from './http-client';

/** V2 templates, their tokens, previews and instances. */
export const templatesApi = {
  list: (query: { name?: string; page?: number; pageSize?: number } = {}) =>
    http.get<Page<Template>>('/templates', query),
  get: (id: number) => http.get<TemplateDetail>(`/templates/${id}`),
  create: (input: Partial<TemplateFields> & { name: string }) =>
    http.post<Template>('/templates', input),
  update: (id: number, input: Partial<TemplateFields>) =>
    http.put<Template>(`/templates/${id}`, input),
  remove: (id: number) => http.delete(`/templates/${id}`),
  setAcceptLegacyToken: (id: number, acceptLegacyToken: boolean) =>
    http.put<Template>(`/templates/${id}`, { acceptLegacyToken }),
  token: (id: number) => http.get<{ token: string }>(`/templates/${id}/token`),
  rotateToken: (id: number) => http.post<{ token: string }>(`/templates/${id}/token/rotate`),
  /** Renders a saved template (id) or an unsaved draft (no id) with the values typed so far. */
  preview: (id: number | null, input: PreviewRequest) =>
    http.post<PreviewResult>(id ? `/templates/${id}/preview` : '/templates/preview', input),
  instances: (id: number) => http.get<Instance[]>(`/templates/${id}/instances`),
  addInstance: (id: number, input: InstanceInput) =>
    http.post<Instance>(`/templates/${id}/instances`, input),
};
