import { z } from 'zod';

import { documentAs } from '../common';
import type { AnyChannelConfigDeclaration } from './declare';

/** What answers carry in place of a stored secret, and what an edit sends back to keep it. */
export const SECRET_MASK = '******';

type ShapeOf<D extends AnyChannelConfigDeclaration> = D['schema']['shape'];
type SecretOf<D extends AnyChannelConfigDeclaration> = D['secretFields'][number];

/** A secret in an edit: kept ("******" or left out), cleared ("") or typed anew. */
type SecretEdit<T extends z.ZodType> = z.ZodOptional<
  z.ZodUnion<[z.ZodLiteral<typeof SECRET_MASK>, z.ZodLiteral<''>, T]>
>;

/** A secret in an answer: masked text, or a map whose values are each masked. */
type SecretAnswer<T extends z.ZodType> =
  z.output<T> extends Record<string, string> | undefined
    ? z.ZodRecord<z.ZodString, z.ZodString>
    : z.ZodString;

export type ConfigEditShape<D extends AnyChannelConfigDeclaration> = {
  [K in keyof ShapeOf<D>]: K extends SecretOf<D> ? SecretEdit<ShapeOf<D>[K]> : ShapeOf<D>[K];
};
export type ConfigAnswerShape<D extends AnyChannelConfigDeclaration> = {
  [K in keyof ShapeOf<D>]: K extends SecretOf<D> ? SecretAnswer<ShapeOf<D>[K]> : ShapeOf<D>[K];
};

/** Whether a field holds a map (a webhook's secret headers) rather than one value. */
function isMap(field: z.ZodType): boolean {
  const inner = field instanceof z.ZodDefault ? field.unwrap() : field;
  return inner instanceof z.ZodRecord;
}

/** The declaration's fields, each through `fn` when it is a secret. */
function withSecrets(
  declaration: AnyChannelConfigDeclaration,
  fn: (field: z.ZodType) => z.ZodType,
): Record<string, z.ZodType> {
  const secrets = new Set<string>(declaration.secretFields);
  return Object.fromEntries(
    Object.entries(declaration.schema.shape as Record<string, z.ZodType>).map(([key, field]) => [
      key,
      secrets.has(key) ? fn(field) : field,
    ]),
  );
}

/**
 * What an edit of a stored channel's config must look like: each field as the kind takes it,
 * but a secret may be sent back masked, left out or "" (the server keeps or clears it). Checks
 * between fields are the server's, once the stored secrets are filled in.
 */
export function configEditSchema<D extends AnyChannelConfigDeclaration>(
  declaration: D,
): z.ZodObject<ConfigEditShape<D>, z.core.$strict> {
  return z.strictObject(
    withSecrets(declaration, (field) =>
      z.union([z.literal(SECRET_MASK), z.literal(''), field]).optional(),
    ),
  ) as unknown as z.ZodObject<ConfigEditShape<D>, z.core.$strict>;
}

/** A stored config as answers carry it: as parsed, with every secret masked. */
export function configAnswerSchema<D extends AnyChannelConfigDeclaration>(
  declaration: D,
): z.ZodObject<ConfigAnswerShape<D>, z.core.$strict> {
  return z.strictObject(
    withSecrets(declaration, (field) =>
      isMap(field) ? z.record(z.string(), z.string()) : z.string(),
    ),
  ) as unknown as z.ZodObject<ConfigAnswerShape<D>, z.core.$strict>;
}

/**
 * A config checked against `check` and passed on exactly as sent. The server parses it itself
 * (defaults, normalising) against what it has stored: parsing here would turn a secret left out
 * into its default and so clear it. Each problem is reported as `config: <field>: <problem>`,
 * the server's own wording for a config it refuses.
 */
export function checkedConfig<T extends z.ZodType>(check: T): z.ZodType<z.input<T>, z.input<T>> {
  const schema = z
    .record(z.string(), z.unknown(), { error: 'must be an object' })
    .superRefine((config, ctx) => {
      const result = check.safeParse(config);
      if (result.success) return;
      for (const issue of result.error.issues) {
        const path = issue.path.map(String).join('.');
        ctx.addIssue({
          code: 'custom',
          message: path ? `${path}: ${issue.message}` : issue.message,
        });
      }
    });
  return documentAs(schema, check) as unknown as z.ZodType<z.input<T>, z.input<T>>;
}
