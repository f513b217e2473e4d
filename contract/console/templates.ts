import { z } from 'zod';

import {
  CONSOLE_BASE,
  idParams,
  named,
  nothing,
  pageOf,
  timestampSchema,
  tokenResponse,
} from '../common';
import { route } from '../route';
import { instanceCreateBody, instanceSchema } from './instances';
import { messageNestCredentials, nameFilterQuery } from './tasks';

const placeholderBody = z
  .object({
    key: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(64)
      // The characters a marker's key may hold (domain/placeholders.ts), Chinese included.
      .regex(
        /^[\p{L}\p{N}_.-]+$/u,
        'use letters (any script, e.g. 服务名), digits, underscores, dots or dashes; no spaces or braces',
      ),
    label: z.string().trim().min(1, 'is required').max(100),
    default: z
      .string()
      .max(10_000)
      .optional()
      .nullable()
      .transform((v) => v ?? undefined),
  })
  .strict();

/** A template's placeholders: up to 100, each key once. */
export const placeholdersBody = z
  .array(placeholderBody)
  .max(100)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((p, i) => {
      if (seen.has(p.key))
        ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `"${p.key}" is defined twice` });
      seen.add(p.key);
    });
  });

const templateBody = z.string().max(200_000).nullable();

/** A hook secret's longest form (a Standard Webhooks `whsec_` key is about 40 characters). */
const HOOK_SECRET_MAX_CHARS = 500;

/** Every field a template has; create and update take any of them (create needs `name`). */
export const templateFields = z
  .object({
    name: z.string().trim().min(1, 'is required').max(100),
    description: z.string().max(2000),
    enabled: z.boolean(),
    placeholders: placeholdersBody,
    text: templateBody,
    html: templateBody,
    markdown: templateBody,
    /** Comma-separated. */
    atMobiles: z.string().trim().max(5000),
    atUserIds: z.string().trim().max(5000),
    atAll: z.boolean(),
    /** Only for a template imported from Message Nest: lets its old token send. */
    acceptLegacyToken: z.boolean({ error: 'must be true or false' }),
    /**
     * The inbound hooks' signing secret (docs/hooks.md), write-only: "******" (as answered) or
     * left out keeps it, "" or null clears it, anything else replaces it.
     */
    hookSecret: z
      .string({ error: 'must be a string' })
      .trim()
      .max(HOOK_SECRET_MAX_CHARS, `must be at most ${HOOK_SECRET_MAX_CHARS} characters`)
      .nullable(),
  })
  .strict();

export const templateCreateBody = templateFields.partial().required({ name: true });
export type TemplateCreate = z.input<typeof templateCreateBody>;
export const templatePatchBody = templateFields.partial();
export type TemplateUpdate = z.input<typeof templatePatchBody>;
/** A parsed update, as the server applies it. */
export type TemplatePatch = z.infer<typeof templatePatchBody>;

/** Placeholder values to render with; body fields given override the stored ones. */
export const previewBody = z
  .object({
    placeholders: z.record(z.string(), z.unknown()).default({}),
    /** For a template not saved yet: its placeholders. */
    definitions: placeholdersBody.optional(),
    text: templateBody.optional(),
    html: templateBody.optional(),
    markdown: templateBody.optional(),
  })
  .strict();
export type PreviewInput = z.infer<typeof previewBody>;
export type PreviewRequest = z.input<typeof previewBody>;

/** The three bodies rendered as a send would render them; null where the body is empty. */
export const previewResult = named(
  'PreviewResult',
  z.strictObject({
    text: z.string().nullable(),
    html: z.string().nullable(),
    markdown: z.string().nullable(),
  }),
);
export type PreviewResult = z.infer<typeof previewResult>;

export const placeholderSchema = named(
  'Placeholder',
  z.strictObject({
    key: z.string(),
    label: z.string(),
    default: z.string().optional(),
  }),
);
export type Placeholder = z.infer<typeof placeholderSchema>;

export const templateSchema = named(
  'Template',
  z.strictObject({
    id: z.number().int().positive(),
    name: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    placeholders: z.array(placeholderSchema),
    text: z.string().nullable(),
    html: z.string().nullable(),
    markdown: z.string().nullable(),
    atMobiles: z.string(),
    atUserIds: z.string(),
    atAll: z.boolean(),
    instanceCount: z.number().int().min(0),
    /** The inbound hooks' secret, never in clear: "******" when set, "" when not. */
    hookSecret: z.string(),
    ...messageNestCredentials,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
);
export type Template = z.infer<typeof templateSchema>;

export const templateDetailSchema = named(
  'TemplateDetail',
  templateSchema.extend({ instances: z.array(instanceSchema) }),
);
export type TemplateDetail = z.infer<typeof templateDetailSchema>;

const update = {
  params: idParams,
  body: templatePatchBody,
  response: templateDetailSchema,
};

export const templateRoutes = {
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/templates`,
    summary: 'List templates, newest first (?name= filters)',
    query: nameFilterQuery,
    response: pageOf(templateSchema),
  }),
  create: route({
    method: 'post',
    path: `${CONSOLE_BASE}/templates`,
    summary: 'Create a template',
    body: templateCreateBody,
    response: templateSchema,
  }),
  previewUnsaved: route({
    method: 'post',
    path: `${CONSOLE_BASE}/templates/preview`,
    summary: 'Render a template that is not saved yet',
    body: previewBody,
    response: previewResult,
  }),
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/templates/{id}`,
    summary: 'Read a template with its instances',
    params: idParams,
    response: templateDetailSchema,
  }),
  update: route({
    method: 'put',
    path: `${CONSOLE_BASE}/templates/{id}`,
    summary: 'Update a template (any of its fields)',
    ...update,
  }),
  patch: route({
    method: 'patch',
    path: `${CONSOLE_BASE}/templates/{id}`,
    summary: 'Update a template (the same as PUT)',
    ...update,
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/templates/{id}`,
    summary: 'Delete a template',
    params: idParams,
    response: nothing,
  }),
  token: route({
    method: 'get',
    path: `${CONSOLE_BASE}/templates/{id}/token`,
    summary: 'The template token',
    params: idParams,
    response: tokenResponse,
  }),
  rotateToken: route({
    method: 'post',
    path: `${CONSOLE_BASE}/templates/{id}/token/rotate`,
    summary: 'Rotate the template token (the old one stops working)',
    params: idParams,
    response: tokenResponse,
  }),
  preview: route({
    method: 'post',
    path: `${CONSOLE_BASE}/templates/{id}/preview`,
    summary: 'Render a template with placeholder values (body fields override the stored ones)',
    params: idParams,
    body: previewBody,
    response: previewResult,
  }),
  instances: route({
    method: 'get',
    path: `${CONSOLE_BASE}/templates/{id}/instances`,
    summary: 'List the instances of a template',
    params: idParams,
    response: z.array(instanceSchema),
  }),
  addInstance: route({
    method: 'post',
    path: `${CONSOLE_BASE}/templates/{id}/instances`,
    summary: 'Add an instance to a template',
    params: idParams,
    body: instanceCreateBody,
    response: instanceSchema,
  }),
};
