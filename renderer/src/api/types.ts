/** Shapes of the console API's `data` (docs/console-api.md). Times are ISO 8601 strings. */

export type ContentType = 'text' | 'html' | 'markdown';

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

export interface User {
  id: number;
  username: string;
}

export interface Status {
  setupRequired: boolean;
  version: string;
  /** The user of the current session cookie, or null when signed out. */
  user: User | null;
}

export interface ChannelType {
  type: string;
  label: string;
  contentTypes: ContentType[];
  supportsMentions: boolean;
  supportsDynamicRecipients: boolean;
  fixedRecipient: 'none' | 'required';
  secretFields: string[];
}

export interface ChannelUse {
  kind: 'task' | 'template';
  id: number;
  name: string;
}

export type ChannelConfig = Record<string, unknown>;

export interface Channel {
  id: number;
  name: string;
  description: string;
  type: string;
  config: ChannelConfig;
  usedBy: ChannelUse[];
  createdAt: string;
  updatedAt: string;
}

export interface ChannelInput {
  name: string;
  description?: string;
  type: string;
  config: ChannelConfig;
}

export interface ChannelTestResult {
  ok: boolean;
  reply: string | null;
  error: string | null;
}

export interface Instance {
  id: number;
  taskId: number | null;
  templateId: number | null;
  channelId: number;
  channel: { id: number; name: string; type: string } | null;
  contentType: ContentType;
  enabled: boolean;
  recipient: string | null;
  dynamicRecipients: boolean;
  atMobiles: string;
  atAll: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface InstanceInput {
  channelId: number;
  contentType: ContentType;
  enabled: boolean;
  recipient?: string;
  dynamicRecipients?: boolean;
  atMobiles?: string;
  atAll?: boolean;
}

export type InstancePatch = Partial<Omit<InstanceInput, 'channelId'>>;

export interface Task {
  id: number;
  name: string;
  instanceCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface TaskDetail extends Task {
  instances: Instance[];
}

export interface Placeholder {
  key: string;
  label: string;
  default?: string;
}

export interface TemplateFields {
  name: string;
  description: string;
  enabled: boolean;
  placeholders: Placeholder[];
  text: string;
  html: string;
  markdown: string;
  atMobiles: string;
  atUserIds: string;
  atAll: boolean;
}

export interface Template extends TemplateFields {
  id: number;
  instanceCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface TemplateDetail extends Template {
  instances: Instance[];
}

export interface PreviewRequest {
  placeholders?: Record<string, string>;
  definitions?: Placeholder[];
  text?: string;
  html?: string;
  markdown?: string;
}

export interface PreviewResult {
  text: string;
  html: string;
  markdown: string;
}

export type SendStatus = 'pending' | 'sent' | 'partial' | 'failed';
export type DeliveryStatus = 'queued' | 'sending' | 'retrying' | 'sent' | 'failed';

export interface Send {
  id: number;
  api: 'v1' | 'v2' | string;
  taskId: number | null;
  templateId: number | null;
  sourceName: string;
  title: string;
  status: SendStatus;
  deliveryCount: number;
  sentCount: number;
  failedCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface Attempt {
  attempt: number;
  outcome: string;
  error: string | null;
  reply: string | null;
  durationMs: number | null;
  startedAt: string;
}

export interface Delivery {
  id: number;
  instanceId: number | null;
  channelId: number | null;
  channelName: string;
  channelType: string;
  contentType: ContentType;
  recipient: string | null;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  reply: string | null;
  sentAt: string | null;
  createdAt: string;
  attemptLog: Attempt[];
}

export interface SendDetail extends Send {
  text: string | null;
  html: string | null;
  markdown: string | null;
  url: string | null;
  request: unknown;
  deliveries: Delivery[];
}

export interface LogQuery {
  q?: string;
  api?: string;
  taskId?: number;
  templateId?: number;
  status?: string;
  from?: string;
  to?: string;
  page?: number;
  pageSize?: number;
}

export interface HostedMessage {
  id: number;
  channelId: number | null;
  title: string;
  content: string;
  format: ContentType;
  url: string | null;
  read: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface HostedMessageDetail extends HostedMessage {
  safeHtml?: string;
}

export interface MessagePage extends Page<HostedMessage> {
  unreadCount: number;
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  jitter: number;
}

export interface About {
  version: string;
  dataDir: string;
  listen: string;
  deliveriesPaused?: boolean;
}

export interface Settings {
  allowTaskId: boolean;
  retry: RetryPolicy;
  v1WaitMs: number;
  rateLimitPerMinute: number;
  showRemoteImages: boolean;
  about: About;
}

export interface SettingsPatch {
  allowTaskId?: boolean;
  retry?: Partial<RetryPolicy>;
  v1WaitMs?: number;
  rateLimitPerMinute?: number;
  showRemoteImages?: boolean;
}

export interface DayStats {
  date: string;
  sent: number;
  partial: number;
  failed: number;
  pending: number;
}

export interface Stats {
  days: DayStats[];
  totals: { today: number; last7: number; last30: number; successRate: number | null };
  byChannel: {
    channelId: number;
    name: string;
    type: string;
    sent: number;
    failed: number;
    pending: number;
  }[];
  bySource: {
    api: string;
    id: number;
    name: string;
    sends: number;
    sent: number;
    failed: number;
  }[];
  retrying: number;
  latestFailures: {
    sendId: number;
    deliveryId: number;
    title: string;
    channelName: string;
    error: string | null;
    at: string;
  }[];
}

/** `event: message` on the console event stream. */
export interface MessageEvent {
  id: number;
  title: string;
  format: ContentType;
  createdAt: string;
}
