import { z } from 'zod';

const placeholderSchema = z
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

export const placeholdersSchema = z
  .array(placeholderSchema)
  .max(100)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((p, i) => {
      if (seen.has(p.key))
        ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `"${p.key}" is defined twice` });
      seen.add(p.key);
    });
  });

const body = z.string().max(200_000).nullable();

export const templateFieldsSchema = z
  .object({
    name: z.string().trim().min(1, 'is required').max(100),
    description: z.string().max(2000),
    enabled: z.boolean(),
    placeholders: placeholdersSchema,
    text: body,
    html: body,
    markdown: body,
    atMobiles: z.string().trim().max(5000),
    atUserIds: z.string().trim().max(5000),
    atAll: z.boolean(),
    /** Only for a template imported from Message Nest: lets its old token send. */
    acceptLegacyToken: z.boolean({ error: 'must be true or false' }),
  })
  .strict();

export const templateCreateSchema = templateFieldsSchema.partial().required({ name: true });
export const templatePatchSchema = templateFieldsSchema.partial();
export type TemplatePatch = z.infer<typeof templatePatchSchema>;

export const previewSchema = z
  .object({
    placeholders: z.record(z.string(), z.unknown()).default({}),
    definitions: placeholdersSchema.optional(),
    text: body.optional(),
    html: body.optional(),
    markdown: body.optional(),
  })
  .strict();
export type PreviewInput = z.infer<typeof previewSchema>;
