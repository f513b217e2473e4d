import type { z } from 'zod';

/** A value a select offers, or that a field's condition compares another field with. */
export type FieldValue = string | number | boolean;

/**
 * When the console shows a field: while another field of the same kind is set (or not), or
 * holds (or does not hold) one of some values. A hidden field keeps its value.
 */
export type FieldCondition<Key extends string = string> =
  | { readonly key: Key; readonly set: boolean }
  | { readonly key: Key; readonly oneOf: readonly FieldValue[] }
  | { readonly key: Key; readonly noneOf: readonly FieldValue[] };

/**
 * How the console presents one config field, and what the rest of Herald must know of it.
 * Whether it is required, its type, bounds, choices and default are the schema's: only what
 * a schema cannot say is written here.
 */
export interface FieldUi<Key extends string = string, Value = unknown> {
  /** i18n key of the label; `channelConfig.<key>` when left out. */
  readonly label?: string;
  /** i18n key of the line under the field. */
  readonly help?: string;
  /** Shown in the empty field; the schema's default when left out. */
  readonly placeholder?: string;
  /** Sealed at rest and masked ("******") in answers. A map's values are each a secret. */
  readonly secret?: boolean;
  /**
   * Says where deliveries (and so the secrets) go. Changing one without typing the stored
   * secrets again is refused, so an edit never sends a stored secret somewhere new.
   */
  readonly destination?: boolean;
  /** A text of several lines (a body template). */
  readonly multiline?: boolean;
  /** Listed under "Advanced" (proxies, timeouts, self-hosted servers). */
  readonly advanced?: boolean;
  /** i18n keys (or plain text) of a select's choices; the values must be the schema's. */
  readonly options?: readonly { readonly value: string | number; readonly label: string }[];
  readonly dependsOn?: FieldCondition<Key>;
  /**
   * What a new channel's form starts with, where the form should show a value the API does
   * not fill in by itself (email's port) or one worth editing from (the webhook's body).
   */
  readonly formDefault?: Value;
  /** For a map: i18n keys of its name column and its add button, when it is not HTTP headers. */
  readonly keyLabel?: string;
  readonly addLabel?: string;
  /** A control of its own, where a generic input cannot serve (see docs/console.md). */
  readonly widget?: 'signingSecret';
}

/** A line of text the console shows under a kind's fields. */
export interface KindNote {
  /** Names its test id, `channel-<id>-note`. */
  readonly id: string;
  /** i18n key of the text. */
  readonly text: string;
  /** Values for the text's {placeholders}: text holding i18n syntax ({ } @ |) goes here. */
  readonly params?: Readonly<Record<string, string>>;
  /** `info`: a box of its own (a kind without fields); `hint`: a muted line. */
  readonly tone: 'info' | 'hint';
  /**
   * The config key the note explains: shown under that field, beside it, while the field
   * shows; under the fields when left out or hidden.
   */
  readonly field?: string;
}

/** The config keys of a kind's schema. */
export type ConfigKey<S extends z.ZodObject> = Extract<keyof S['shape'], string>;

/** One FieldUi per config key, each `formDefault` of its field's input type. */
export type FieldsUi<S extends z.ZodObject> = {
  readonly [K in ConfigKey<S>]: FieldUi<ConfigKey<S>, z.input<S['shape'][K]>>;
};

/** The keys of `U` whose FieldUi sets `flag`. */
export type FlaggedKey<U, Flag extends 'secret' | 'destination'> = {
  [K in keyof U]: U[K] extends { readonly [F in Flag]: true } ? K : never;
}[keyof U] &
  string;

/**
 * A channel kind's config, declared once: the zod schema the server parses with, and how the
 * console shows each field. The console's form, the OpenAPI document, the contract's typing
 * of `config`, the sealed secrets and the destination check are all read from it.
 */
export interface ChannelConfigDeclaration<
  S extends z.ZodObject = z.ZodObject,
  U extends FieldsUi<S> = FieldsUi<S>,
> {
  readonly schema: S;
  readonly fields: U;
  readonly notes: readonly KindNote[];
  /** The keys marked `secret`, in the schema's order. */
  readonly secretFields: readonly FlaggedKey<U, 'secret'>[];
  /** The keys marked `destination`, in the schema's order. */
  readonly destinationFields: readonly FlaggedKey<U, 'destination'>[];
}

/** A declaration of any kind. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind's own schema and fields
export type AnyChannelConfigDeclaration = ChannelConfigDeclaration<any, any>;

/**
 * Declares a kind's config. `fields` must have exactly one entry per key of `schema`: a key
 * without one, or an entry for no key, is a compile error.
 */
export function declareChannelConfig<S extends z.ZodObject, const U extends FieldsUi<S>>(declared: {
  schema: S;
  fields: U & { readonly [K in Exclude<keyof U, ConfigKey<S>>]: never };
  notes?: readonly KindNote[];
}): ChannelConfigDeclaration<S, U> {
  const { schema, fields } = declared;
  const keys = Object.keys(schema.shape);
  const flagged = (flag: 'secret' | 'destination') =>
    keys.filter((key) => (fields as Record<string, FieldUi>)[key]?.[flag] === true);
  return {
    schema,
    fields,
    notes: declared.notes ?? [],
    secretFields: flagged('secret') as FlaggedKey<U, 'secret'>[],
    destinationFields: flagged('destination') as FlaggedKey<U, 'destination'>[],
  };
}
