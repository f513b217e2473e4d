import { z } from 'zod';

import { named } from '../common';
import type { AnyChannelConfigDeclaration, FieldCondition, FieldUi } from './declare';

/** The controls the console draws a config field with. */
export const CHANNEL_FIELD_INPUTS = [
  'text',
  'url',
  'secret',
  'number',
  'select',
  'textarea',
  'switch',
  'map',
  'list',
  'signingSecret',
] as const;
export type ChannelFieldInput = (typeof CHANNEL_FIELD_INPUTS)[number];

const fieldValue = z.union([z.string(), z.number(), z.boolean()]);

/** One config field of a kind, as the console draws it: its declaration and its schema, joined. */
export const channelFieldSchema = named(
  'ChannelField',
  z.strictObject({
    key: z.string(),
    input: z.enum(CHANNEL_FIELD_INPUTS),
    /** i18n keys. */
    label: z.string(),
    help: z.string().nullable(),
    placeholder: z.string().nullable(),
    /** The API refuses the config without it (no default fills it in). */
    required: z.boolean(),
    secret: z.boolean(),
    destination: z.boolean(),
    advanced: z.boolean(),
    options: z
      .array(z.strictObject({ value: z.union([z.string(), z.number()]), label: z.string() }))
      .nullable(),
    min: z.number().nullable(),
    max: z.number().nullable(),
    maxLength: z.number().int().nullable(),
    /** What the server fills in when the field is left out (JSON); null when nothing. */
    default: z.unknown(),
    /** What a new channel's form starts with (JSON); null when nothing. */
    formDefault: z.unknown(),
    keyLabel: z.string().nullable(),
    addLabel: z.string().nullable(),
    /** Shown only while another field is set (or not), or holds (or not) one of some values. */
    dependsOn: z
      .union([
        z.strictObject({ key: z.string(), set: z.boolean() }),
        z.strictObject({ key: z.string(), oneOf: z.array(fieldValue) }),
        z.strictObject({ key: z.string(), noneOf: z.array(fieldValue) }),
      ])
      .nullable(),
  }),
);
export type ChannelField = z.infer<typeof channelFieldSchema>;

/** A line the console shows under a kind's fields. */
export const channelNoteSchema = named(
  'ChannelNote',
  z.strictObject({
    id: z.string(),
    /** i18n key, filled in with `params`. */
    text: z.string(),
    params: z.record(z.string(), z.string()),
    tone: z.enum(['info', 'hint']),
    /** The config key it explains (shown under that field), or null: under the fields. */
    field: z.string().nullable(),
  }),
);
export type ChannelNote = z.infer<typeof channelNoteSchema>;

/** The part of a field's JSON Schema (as sent) the console needs. */
interface JsonField {
  type?: string;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  maxLength?: number;
  default?: unknown;
  items?: JsonField;
  additionalProperties?: JsonField;
}

function inputOf(key: string, json: JsonField, ui: FieldUi): ChannelFieldInput {
  if (ui.widget) return ui.widget;
  if (json.type === 'boolean') return 'switch';
  if (json.enum || ui.options) return 'select';
  if (json.type === 'integer' || json.type === 'number') return 'number';
  // The map and list inputs edit text: names to text, a list of text.
  if (json.type === 'object' && json.additionalProperties?.type === 'string') return 'map';
  if (json.type === 'array' && json.items?.type === 'string') return 'list';
  if (json.type === 'string') {
    if (ui.secret) return 'secret';
    if (ui.multiline) return 'textarea';
    return json.pattern?.startsWith('^https?:') ? 'url' : 'text';
  }
  throw new Error(`config field ${key}: no console input for ${JSON.stringify(json)}`);
}

/** The choices of a select: the declared labels, which must name exactly the schema's values. */
function optionsOf(key: string, json: JsonField, ui: FieldUi): ChannelField['options'] {
  if (!ui.options)
    return json.enum?.map((value) => ({ value: String(value), label: String(value) })) ?? null;
  const declared = ui.options.map((o) => o.value);
  if (json.enum && JSON.stringify([...declared].sort()) !== JSON.stringify([...json.enum].sort()))
    throw new Error(`config field ${key}: options ${declared.join(', ')} are not the schema's`);
  return ui.options.map((o) => ({ value: o.value, label: o.label }));
}

function conditionOf(condition: FieldCondition): NonNullable<ChannelField['dependsOn']> {
  if ('set' in condition) return { key: condition.key, set: condition.set };
  if ('oneOf' in condition) return { key: condition.key, oneOf: [...condition.oneOf] };
  return { key: condition.key, noneOf: [...condition.noneOf] };
}

// `.int()` bounds a field to the safe integers; that says nothing to a person.
const bound = (n: number | undefined): number | null =>
  n === undefined || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? null : n;

function describeField(key: string, json: JsonField, required: boolean, ui: FieldUi): ChannelField {
  const input = inputOf(key, json, ui);
  const whole = json.type === 'integer' ? 1 : 0;
  const schemaDefault = json.default ?? null;
  return {
    key,
    input,
    label: ui.label ?? `channelConfig.${key}`,
    help: ui.help ?? null,
    placeholder:
      ui.placeholder ??
      (typeof schemaDefault === 'string' && schemaDefault !== '' ? schemaDefault : null),
    required,
    secret: ui.secret === true,
    destination: ui.destination === true,
    advanced: ui.advanced === true,
    options: input === 'select' ? optionsOf(key, json, ui) : null,
    min: bound(
      json.minimum ??
        (json.exclusiveMinimum !== undefined ? json.exclusiveMinimum + whole : undefined),
    ),
    max: bound(
      json.maximum ??
        (json.exclusiveMaximum !== undefined ? json.exclusiveMaximum - whole : undefined),
    ),
    maxLength: json.maxLength ?? null,
    default: schemaDefault,
    formDefault: ui.formDefault ?? null,
    keyLabel: ui.keyLabel ?? null,
    addLabel: ui.addLabel ?? null,
    dependsOn: ui.dependsOn ? conditionOf(ui.dependsOn) : null,
  };
}

/**
 * A kind's config as the console draws it: every key of the schema, in the schema's order,
 * with what its JSON Schema says (type, required, bounds, choices, default) and what its
 * declaration adds. Throws for a field no console input can edit.
 */
export function describeChannelConfig(declaration: AnyChannelConfigDeclaration): {
  fields: ChannelField[];
  notes: ChannelNote[];
} {
  const json = z.toJSONSchema(declaration.schema, { io: 'input' }) as {
    properties?: Record<string, JsonField>;
    required?: string[];
  };
  const required = new Set(json.required ?? []);
  const ui = declaration.fields as Record<string, FieldUi>;
  return {
    fields: Object.keys(declaration.schema.shape).map((key) =>
      describeField(key, json.properties?.[key] ?? {}, required.has(key), ui[key] ?? {}),
    ),
    notes: declaration.notes.map((note) => {
      if (note.field !== undefined && !(note.field in declaration.schema.shape))
        throw new Error(`note ${note.id}: no config field ${note.field}`);
      return { ...note, params: { ...note.params }, field: note.field ?? null };
    }),
  };
}
