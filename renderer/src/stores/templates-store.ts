import { defineStore } from 'pinia';

import { templatesApi } from '../api/templates-api';
import type { PreviewRequest, TemplateFields } from '../data-types';

/**
 * V2 templates as the templates page, the editor and the pickers use them. What templates share
 * with tasks (token, instances, Message Nest token) is the owners store's.
 */
export const useTemplatesStore = defineStore('templates', () => {
  const list = (query: { name?: string; page?: number; pageSize?: number } = {}) =>
    templatesApi.list(query);
  const create = (input: Partial<TemplateFields> & { name: string }) => templatesApi.create(input);
  const update = (id: number, input: Partial<TemplateFields>) => templatesApi.update(id, input);
  const remove = (id: number) => templatesApi.remove(id);
  /** Renders a template not saved yet with the values typed so far, as a send would. */
  const preview = (input: PreviewRequest) => templatesApi.preview(null, input);

  return { list, create, update, remove, preview };
});
