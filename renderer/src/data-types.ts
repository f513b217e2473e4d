/**
 * Shapes of the console API's `data` (docs/console-api.md), shared by the api modules that fetch
 * them, the stores that hold them and the components that show them. Outside api/ because
 * components use these types but reach data only through the stores. Times are ISO 8601 strings.
 */

export type ContentType = 'text' | 'html' | 'markdown';

export interface Page<T> {
  items: T[];
  total: number;
  /** Logs and messages: true when more than `total` rows match (the count stopped there). */
  totalIsCapped?: boolean;
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
  /** Config keys saying where messages go; changing one means typing the secrets again. */
  destinationFields: string[];
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

/** An imported task's or template's Message Nest credentials (all null/false otherwise). */
export interface LegacyCredentials {
  legacyId: string | null;
  legacyToken: string | null;
  acceptLegacyToken: boolean;
}

export interface Task extends LegacyCredentials {
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

export interface Template extends TemplateFields, LegacyCredentials {
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
  /** The schedule whose run made this send; null for API calls. */
  scheduleId?: number | null;
  title: string;
  status: SendStatus;
  deliveryCount: number;
  /** What opened the send; null on sends from before it was recorded. */
  credential: 'token' | 'legacy_token' | 'task_id' | 'legacy_task_id' | null;
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
  /** null when the schedule was deleted since. */
  scheduleName?: string | null;
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
  /** The share link (opens the message without login); null: none, or revoked. */
  previewUrl: string | null;
  read: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A hosted message as its share link shows it (GET /api/public/preview/:key). */
export interface PublicPreview {
  title: string;
  content: string;
  format: ContentType;
  url: string | null;
  safeHtml: string;
  createdAt: string;
}

export type SendApiHttpStatus = 'code' | 'always200';

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
  retention: Retention;
  publicBaseUrl: string;
  sendApi: { httpStatus: SendApiHttpStatus };
  showRemoteImages: boolean;
  about: About;
}

/** How long history is kept, in days; 0 keeps it forever. */
export interface Retention {
  sendsDays: number;
  messagesDays: number;
}

export interface MaintenanceInfo {
  file: string;
  sizeBytes: number;
  dbBytes: number;
  walBytes: number;
  pageSize: number;
  pageCount: number;
  freePages: number;
  autoVacuum: 'none' | 'full' | 'incremental';
  rows: { sends: number; deliveries: number; attempts: number; hostedMessages: number };
  searchIndexPending: number;
  retention: Retention;
}

export interface PruneResult {
  deleted: { sends: number; deliveries: number; attempts: number; hostedMessages: number };
  retention: Retention;
}

export interface SettingsPatch {
  allowTaskId?: boolean;
  retry?: Partial<RetryPolicy>;
  v1WaitMs?: number;
  rateLimitPerMinute?: number;
  retention?: Partial<Retention>;
  publicBaseUrl?: string;
  sendApi?: { httpStatus: SendApiHttpStatus };
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

export type CatchUp = 'once' | 'skip';

/** What an administrator sets on a scheduled message (the console API's field names). */
export interface ScheduleFields {
  name: string;
  taskId: number | null;
  templateId: number | null;
  cron: string | null;
  /** ISO 8601 time of a one-time run. */
  runAt: string | null;
  timezone: string;
  title: string;
  text: string | null;
  html: string | null;
  markdown: string | null;
  url: string | null;
  atMobiles: string[];
  atUserIds: string[];
  atAll: boolean;
  recipients: string[];
  placeholders: Record<string, string>;
  enabled: boolean;
  catchUp: CatchUp;
}

export interface Schedule extends ScheduleFields {
  id: number;
  /** The task's or template's name; null once it was deleted. */
  sourceName: string | null;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastSendId: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CronPreview {
  cron: string;
  timezone: string;
  runs: string[];
}

export type ImportKind =
  'channels' | 'tasks' | 'templates' | 'instances' | 'schedules' | 'hostedMessages' | 'logs';

/** What a Message Nest import created, found imported already, or skipped (and why). */
export interface ImportReport {
  source: string;
  dryRun: boolean;
  tablePrefix: string;
  counts: Record<ImportKind, { created: number; alreadyImported: number; skipped: number }>;
  skipped: Array<{ kind: ImportKind; id: string; name: string; reason: string }>;
  notes: string[];
}

/** `event: message` on the console event stream. */
export interface MessageEvent {
  id: number;
  title: string;
  format: ContentType;
  createdAt: string;
}
