import { defineStore } from 'pinia';

import type { PreviewRequest, TemplateCreate, TemplateUpdate } from '@contract';

import { templatesApi } from '../api/templates-api';

/**
 * V2 templates as the templates page, the editor and the pickers use them. What templates share
 * with tasks (token, instances, Message Nest token) is the sources store's.
 */
export const useTemplatesStore = defineStore('templates', () => {
  const list = (query: { name?: string; page?: number; pageSize?: number } = {}) =>
    templatesApi.list(query);
  const create = (input: TemplateCreate) => templatesApi.create(input);
  const update = (id: number, input: TemplateUpdate) => templatesApi.update(id, input);
  const remove = (id: number) => templatesApi.remove(id);
  /** Renders a template not saved yet with the values typed so far, as a send would. */
  const preview = (input: PreviewRequest) => templatesApi.preview(null, input);

  return { list, create, update, remove, preview };
});
