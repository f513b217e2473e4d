import { z } from 'zod';

import { CHANNEL_CONFIGS } from '../channel-kinds/index';
import {
  checkedConfig,
  configAnswerSchema,
  configEditSchema,
} from '../channel-kinds/config-schemas';
import { channelFieldSchema, channelNoteSchema } from '../channel-kinds/describe';
import { CHANNEL_GROUPS, CHANNEL_ICONS } from '../channel-kinds/kind-groups';
import { CHANNEL_TYPES, type ChannelKind } from '../channel-kinds/kinds';
import {
  CONSOLE_BASE,
  contentTypeSchema,
  documentAs,
  idParams,
  nameSchema,
  named,
  nothing,
  pageOf,
  timestampSchema,
} from '../common';
import { route } from '../route';

/** A channel kind's name: `type: unknown channel type "x"; one of …` for any other. */
export const channelKindSchema = z.enum(CHANNEL_TYPES, {
  error: (iss) =>
    iss.input === undefined
      ? 'is required'
      : `unknown channel type ${JSON.stringify(iss.input)}; one of ${CHANNEL_TYPES.join(', ')}`,
});

/** One channel kind the server knows; the console builds its forms from these. */
export const channelTypeSchema = named(
  'ChannelType',
  z.strictObject({
    type: z.enum(CHANNEL_TYPES),
    label: z.string(),
    /** Where the channel dialog's grid lists the kind, and the icon it shows. */
    group: z.enum(CHANNEL_GROUPS),
    icon: z.enum(CHANNEL_ICONS),
    /** i18n key of the kind's short description in that grid. */
    summary: z.string(),
    contentTypes: z.array(contentTypeSchema),
    supportsMentions: z.boolean(),
    supportsDynamicRecipients: z.boolean(),
    /** Whether a non-dynamic instance must name a recipient (email address, OpenID). */
    fixedRecipient: z.enum(['none', 'required']),
    /** Whether an instance may name its own template code over the channel's (Aliyun SMS). */
    instanceTemplateCode: z.boolean(),
    /** Config keys holding secrets: masked as "******" in answers. */
    secretFields: z.array(z.string()),
    /** Config keys saying where messages go; changing one means typing the secrets again. */
    destinationFields: z.array(z.string()),
    /** Every config key, in order, as the console's form draws it. */
    fields: z.array(channelFieldSchema),
    /** Lines shown under the fields. */
    notes: z.array(channelNoteSchema),
  }),
);
export type ChannelType = z.infer<typeof channelTypeSchema>;

/**
 * Any kind's settings, unchecked here: where the kind is not known yet (a test send's edit,
 * an edit that does not name its `type`), the server checks them against the stored kind.
 */
export const channelConfigSchema = z.record(z.string(), z.unknown(), {
  error: 'must be an object',
});
export type ChannelConfig = z.infer<typeof channelConfigSchema>;

/** A task or template with an instance on the channel. */
export const channelUseSchema = named(
  'ChannelUse',
  z.strictObject({
    kind: z.enum(['task', 'template']),
    id: z.number().int().positive(),
    name: z.string(),
  }),
);
export type ChannelUse = z.infer<typeof channelUseSchema>;

const description = z.string().max(2000);

/** A channel of one kind as answers carry it. */
function channelOf<K extends ChannelKind>(kind: K) {
  return z.strictObject({
    id: z.number().int().positive(),
    name: z.string(),
    description: z.string(),
    type: z.literal(kind),
    /** Secret fields read "******" when set and "" when not. */
    config: configAnswerSchema(CHANNEL_CONFIGS[kind]),
    usedBy: z.array(channelUseSchema),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  });
}
type ChannelOf = { [K in ChannelKind]: ReturnType<typeof channelOf<K>> }[ChannelKind];

/** A channel: its `config` is its kind's, so `type` tells which fields it has. */
export const channelSchema = named(
  'Channel',
  z.discriminatedUnion('type', CHANNEL_TYPES.map(channelOf) as [ChannelOf, ...ChannelOf[]]),
);
export type Channel = z.infer<typeof channelSchema>;
/** The config of a channel of kind K, as answers carry it. */
export type ChannelConfigOf<K extends ChannelKind> = Extract<Channel, { type: K }>['config'];

/** A new channel of one kind: its config is checked against the kind's. */
function newChannelOf<K extends ChannelKind>(kind: K) {
  return z.strictObject({
    name: nameSchema,
    description: description.optional(),
    type: z.literal(kind),
    config: checkedConfig(CHANNEL_CONFIGS[kind].schema).optional(),
  });
}
type NewChannelOf = { [K in ChannelKind]: ReturnType<typeof newChannelOf<K>> }[ChannelKind];

/** A new channel; a config field the kind does not have is refused, naming it. */
export const channelCreateBody = z.discriminatedUnion(
  'type',
  CHANNEL_TYPES.map(newChannelOf) as [NewChannelOf, ...NewChannelOf[]],
  { error: (iss) => (iss.code === 'invalid_union' ? kindRefusal(iss.input) : undefined) },
);
export type ChannelCreate = z.input<typeof channelCreateBody>;

/** The message for a body whose `type` names no kind. */
function kindRefusal(body: unknown): string {
  const type =
    typeof body === 'object' && body !== null ? (body as { type?: unknown }).type : undefined;
  return channelKindSchema.safeParse(type).error?.issues[0]?.message ?? 'Invalid input';
}

/** An edit of a channel of one kind, named by `type`. */
function channelEditOf<K extends ChannelKind>(kind: K) {
  return z.strictObject({
    name: nameSchema.optional(),
    description: description.optional(),
    type: z.literal(kind),
    config: checkedConfig(configEditSchema(CHANNEL_CONFIGS[kind])).optional(),
  });
}
type ChannelEditOf = { [K in ChannelKind]: ReturnType<typeof channelEditOf<K>> }[ChannelKind];
const channelEdits = Object.fromEntries(
  CHANNEL_TYPES.map((kind) => [kind, channelEditOf(kind)]),
) as unknown as Record<ChannelKind, ChannelEditOf>;

/** An edit that does not name the channel's kind: the server checks `config` against it. */
const untypedEdit = z.strictObject({
  name: nameSchema.optional(),
  description: description.optional(),
  config: channelConfigSchema.optional(),
});

/** Every shape an edit may take, for the OpenAPI document and the types. */
const channelEditShapes = z.union([
  ...(Object.values(channelEdits) as [ChannelEditOf, ...ChannelEditOf[]]),
  untypedEdit,
]);
export type ChannelUpdate = z.input<typeof channelEditShapes>;

/**
 * A channel edit: "******" or a left-out secret keeps it, "" clears it; `type` cannot change.
 * With `type`, `config` is checked against that kind here; without it (as before `config` was
 * typed), the server checks it against the stored kind, with the same 400.
 */
export const channelUpdateBody = documentAs(
  z
    .strictObject({
      name: nameSchema.optional(),
      description: description.optional(),
      type: channelKindSchema.optional(),
      config: channelConfigSchema.optional(),
    })
    .superRefine((body, ctx) => {
      if (body.type === undefined || body.config === undefined) return;
      const result = channelEdits[body.type].shape.config.safeParse(body.config);
      for (const issue of result.error?.issues ?? [])
        ctx.addIssue({ code: 'custom', path: ['config'], message: issue.message });
    }),
  channelEditShapes,
) as unknown as z.ZodType<ChannelUpdate, ChannelUpdate>;

/** What a test message says and whom it reaches, when the kind needs a recipient. */
const testMessage = {
  title: z.string().max(1000).optional(),
  content: z.string().max(20_000).optional(),
  recipient: z.string().max(1000).optional(),
};

export const channelTestBody = z
  .object({
    ...testMessage,
    /** An unsaved edit of the config to try; saved secrets fill in its masked values. */
    config: channelConfigSchema.optional(),
  })
  .strict();
export type ChannelTest = z.input<typeof channelTestBody>;

/** A test of a channel of one kind that is not saved yet: its config is checked as the kind's. */
function unsavedTestOf<K extends ChannelKind>(kind: K) {
  return z.strictObject({
    ...testMessage,
    type: z.literal(kind),
    config: checkedConfig(CHANNEL_CONFIGS[kind].schema).optional(),
  });
}
type UnsavedTestOf = { [K in ChannelKind]: ReturnType<typeof unsavedTestOf<K>> }[ChannelKind];

/** A test of a new channel's form before it is saved: the kind and its config, as a create. */
export const channelTestUnsavedBody = z.discriminatedUnion(
  'type',
  CHANNEL_TYPES.map(unsavedTestOf) as [UnsavedTestOf, ...UnsavedTestOf[]],
  { error: (iss) => (iss.code === 'invalid_union' ? kindRefusal(iss.input) : undefined) },
);
export type ChannelTestUnsaved = z.input<typeof channelTestUnsavedBody>;

/** The platform's answer to a test message. */
export const channelTestResult = named(
  'ChannelTestResult',
  z.strictObject({
    ok: z.boolean(),
    reply: z.string().nullable(),
    error: z.string().nullable(),
  }),
);
export type ChannelTestResult = z.infer<typeof channelTestResult>;

export const channelRoutes = {
  types: route({
    method: 'get',
    path: `${CONSOLE_BASE}/channel-types`,
    summary: 'Channel kinds with their content types and rules',
    response: z.array(channelTypeSchema),
  }),
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/channels`,
    summary: 'List channels (all of them, one page), filtered by kind or text',
    query: z.object({ type: z.string().optional(), q: z.string().optional() }),
    response: pageOf(channelSchema),
  }),
  create: route({
    method: 'post',
    path: `${CONSOLE_BASE}/channels`,
    summary: 'Create a channel',
    body: channelCreateBody,
    response: channelSchema,
  }),
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/channels/{id}`,
    summary: 'Read a channel (secrets masked)',
    params: idParams,
    response: channelSchema,
  }),
  update: route({
    method: 'put',
    path: `${CONSOLE_BASE}/channels/{id}`,
    summary: 'Update a channel; a new destination needs its secrets again',
    params: idParams,
    body: channelUpdateBody,
    response: channelSchema,
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/channels/{id}`,
    summary: 'Delete a channel (refused while instances use it)',
    params: idParams,
    response: nothing,
  }),
  testUnsaved: route({
    method: 'post',
    path: `${CONSOLE_BASE}/channels/test`,
    summary: 'Send a test message through a channel that is not saved yet (its kind and config)',
    body: channelTestUnsavedBody,
    response: channelTestResult,
  }),
  test: route({
    method: 'post',
    path: `${CONSOLE_BASE}/channels/{id}/test`,
    summary: 'Send a test message through a channel, or through an unsaved edit of it',
    params: idParams,
    body: channelTestBody,
    response: channelTestResult,
  }),
};
