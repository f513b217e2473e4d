import type { z } from 'zod';

import type { ChannelConfigDeclaration } from '../../contract/channel-kinds/declare';
import type { ChannelKind } from '../../contract/channel-kinds/kinds';
import type { Priority } from '../../contract/priority';
import type { Clock } from '../lib/clock';
import type { ChannelDayCounts } from './day-counts';

export const CONTENT_TYPES = ['text', 'html', 'markdown'] as const;
/** The contract's ContentType of an instance. */
export type ContentType = (typeof CONTENT_TYPES)[number];

/** @mentions for group-chat robots; empty on every other channel kind. */
export interface Mentions {
  mobiles: string[];
  userIds: string[];
  all: boolean;
}

export const noMentions = (): Mentions => ({ mobiles: [], userIds: [], all: false });

/**
 * A file sent with a message (by upload or by URL, issue 43 §2): stored in the data folder and
 * served by Herald at `url`. Each adapter carries what its platform can take (the file itself,
 * an image, or the link); docs/send-api.md has the table.
 */
export interface MessageAttachment {
  /** Unguessable: it is the secret part of `url`. */
  id: string;
  /** The sender's name for the file, made safe; never trusted for the type. */
  filename: string;
  /** The type sniffed from the bytes (application/octet-stream when unknown). */
  mime: string;
  size: number;
  /** Herald's absolute URL for the file, for platforms that take a link or fetch it. */
  url: string;
  /** An image a reader may show inline; anything else (HTML and SVG included) is a download. */
  inline: boolean;
  /** The file's bytes, for platforms that take the file itself (email, Telegram, Discord). */
  read(): Promise<Buffer>;
}

/** What one delivery hands to an adapter: content is already in `contentType`'s format. */
export interface OutboundMessage {
  deliveryId: number;
  channelId: number;
  title: string;
  content: string;
  contentType: ContentType;
  url: string | null;
  /** The fixed recipient of the instance, or one dynamic recipient; null where the kind has none. */
  recipient: string | null;
  mentions: Mentions;
  /**
   * 1 (min) … 5 (max) as the sender gave it; null when none was given, and then the channel's
   * own default applies (docs/send-api.md "Priority" has each kind's mapping).
   */
  priority: Priority | null;
  /**
   * How many sends with the same dedup key were suppressed between the last delivered one and
   * this one (0 when none were): the `repeats` placeholder's value, and `"repeats"` in the
   * custom webhook's body.
   */
  repeats: number;
  /**
   * The instance's own template code (kinds whose adapter declares `instanceTemplateCode`,
   * Aliyun SMS), used over the channel's; null or absent: the channel's.
   */
  templateCode?: string | null;
  /** The send's files, in the order given; absent or empty when it has none. */
  attachments?: readonly MessageAttachment[];
  /**
   * Deliver without alerting (a quiet-hours rule's `soften`, issue 46 §1): each adapter in its
   * platform's own silent mode (docs/send-api.md "Quiet hours"). Absent: as usual.
   */
  silent?: boolean;
}

/** A stored hosted message, as the hosted channel hands it to the reader. */
export interface HostedMessageInput {
  channelId: number;
  deliveryId: number;
  title: string;
  content: string;
  format: ContentType;
  url: string | null;
  /** Announced with the message (notifications); the stored row takes its delivery's. */
  priority?: Priority | null;
  /** The send's files: the reader shows images inline and the rest as downloads. */
  attachments?: readonly MessageAttachment[];
}

/** What the server lends adapters; nothing in here is Electron or Express. */
export interface AdapterRuntime {
  clock: Clock;
  /** Stable per data folder (see deriveInstallId); keeps delivery ids of two Heralds apart. */
  installId: string;
  storeHostedMessage(input: HostedMessageInput): Promise<{ id: number }>;
  /** Sends per channel and day, for platforms with a daily quota (PushPlus). */
  dayCounts: ChannelDayCounts;
}

/** An adapter's short account of a success: the platform's reply, kept in the send log. */
export interface DeliveryReceipt {
  reply: string;
}

export interface RateLimit {
  /** Deliveries sharing a key share one window (e.g. one robot webhook). */
  key: string;
  max: number;
  perMs: number;
}

/**
 * One channel kind. Adapters resolve with a receipt or throw a DeliveryError; they never
 * retry themselves (the queue does) and never swallow a failure.
 */
export interface ChannelAdapter<Config = Record<string, unknown>> {
  readonly type: ChannelKind;
  readonly label: string;
  /**
   * The kind's config as declared once (contract/channel-kinds): the schema and how the
   * console shows each field. configSchema, secretFields and destinationFields come from it.
   */
  readonly declaration: ChannelConfigDeclaration;
  /** The declaration's schema, with any check only the server can make (see configOf). */
  readonly configSchema: z.ZodType<Config>;
  /** Config keys holding secrets: sealed at rest, masked in the console API. */
  readonly secretFields: readonly string[];
  /**
   * Config keys that say where deliveries (and so the secrets) go: URL, server, host, account.
   * Changing one without re-entering the stored secrets is refused, so a console edit can never
   * send a stored secret somewhere new. The proxy is handled for every kind (proxy-credentials.ts).
   */
  readonly destinationFields: readonly string[];
  readonly contentTypes: readonly ContentType[];
  readonly supportsMentions: boolean;
  readonly supportsDynamicRecipients: boolean;
  /** Whether a non-dynamic instance must name a fixed recipient (email address, OpenID). */
  readonly fixedRecipient: 'none' | 'required';
  /**
   * Kinds whose instances may carry their own template code (Aliyun SMS): checks one (an
   * error text, or null), and reads the channel's default (null when it has none).
   */
  readonly instanceTemplateCode?: {
    validate(code: string): string | null;
    channelDefault(config: Record<string, unknown>): string | null;
  };
  /** Returns an error text for a malformed recipient, or null when it is fine. */
  validateRecipient?(recipient: string): string | null;
  /** A platform rate limit that the queue paces deliveries to (delaying, never dropping). */
  rateLimit?(config: Config): RateLimit | null;
  send(config: Config, message: OutboundMessage, runtime: AdapterRuntime): Promise<DeliveryReceipt>;
}

/**
 * An adapter's config members, from its kind's declaration. An adapter with a check the
 * contract cannot make (it needs server code) sets `configSchema` after these, to the
 * declared schema with that check added.
 */
export function configOf<S extends z.ZodObject>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any kind's fields
  declaration: ChannelConfigDeclaration<S, any>,
) {
  return {
    declaration: declaration as unknown as ChannelConfigDeclaration,
    configSchema: declaration.schema,
    secretFields: declaration.secretFields as readonly string[],
    destinationFields: declaration.destinationFields as readonly string[],
  };
}

/** Declares an adapter with its config type inferred from its schema. */
export function defineAdapter<Config>(adapter: ChannelAdapter<Config>): ChannelAdapter<Config> {
  return adapter;
}

/**
 * An adapter of any kind. `send` takes each kind's own config type, so a heterogeneous
 * registry can only hold them as `any`; configs are parsed by the adapter's own schema first.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyChannelAdapter = ChannelAdapter<any>;
