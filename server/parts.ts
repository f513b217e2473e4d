import type { Sequelize } from 'sequelize';

import type { AttachmentService } from './features/attachments/attachment-service';
import type { ChannelService } from './features/channel-config/channel-service';
import type { ScheduleService } from './features/schedules/schedule-service';
import type { DigestService } from './features/digests/digest-service';
import type { SetupCode } from './features/auth/setup-code';
import type { SendService } from './features/sending/send-service';
import type { AdapterRuntime } from './channels/channel-adapter';
import type { ChannelRegistry } from './channels/registry';
import type { SettingsStore } from './features/settings/settings-store';
import type { SecretBox } from './crypto/secret-box';
import type { TokenCodec } from './crypto/tokens';
import type { WriteLock } from './db/writer';
import type { AuditLog } from './features/audit/audit-log';
import type { HeraldEvents } from './events';
import type { Clock } from './lib/clock';
import type { DeliveryState } from './queue/delivery-state';
import type { Dispatcher } from './queue/dispatcher';
import type { DeliveryThread } from './queue/delivery-thread/delivery-thread';
import type { ScheduleRunner } from './features/schedules/schedule-runner';
import type { ImageProxyService } from './features/image-proxy/image-proxy-service';

/**
 * The shared parts the composition root (server/composition.ts) builds, by the names every
 * service and router picks its dependencies from: each declares `Pick<HeraldParts, …>` of what
 * it uses and is handed exactly that. The whole set is exposed only to tests and the desktop
 * shell (`HeraldServer.ctx`).
 */
export interface HeraldParts {
  sequelize: Sequelize;
  /** Every write goes through the one writer (server/db/writer.ts). */
  writeLock: WriteLock;
  /** The one owner of delivery and send status (server/queue/delivery-state.ts). */
  deliveries: DeliveryState;
  registry: ChannelRegistry;
  /** What Herald lends an adapter while it sends (clock, install id, hosted storage). */
  adapterRuntime: AdapterRuntime;
  clock: Clock;
  events: HeraldEvents;
  dispatcher: Dispatcher;
  /** Deliveries on a thread of their own (SQLite); null where there is none. */
  deliveryThread: DeliveryThread | null;
  tokens: TokenCodec;
  secrets: SecretBox;
  settings: SettingsStore;
  dataDir: string;
  version: string;
  /** The address the server listens on, for the console's About page and share links. */
  listenUrl(): string;
  /** One-time secret the desktop window signs in with; consumed on use. */
  desktopSecret: { value: string | null };
  /** The one-time code that creates the first administrator; empty once one exists. */
  setupCode: SetupCode;
  /** Express 'trust proxy': the proxies whose X-Forwarded-* headers count (HERALD_TRUST_PROXY). */
  trustProxy: string[] | false;
  /** Channels: CRUD for the console, and the dispatcher's channel loader. */
  channels: ChannelService;
  /** Every send's pipeline: the send APIs, the hooks and the schedules. */
  sends: SendService;
  /** Files sent with messages: stored, served, handed to deliveries, pruned (issue 43 §2). */
  attachments: AttachmentService;
  /** Turns one run of a schedule into a send. */
  scheduleRunner: ScheduleRunner;
  /** Schedules as the console edits them. */
  schedules: ScheduleService;
  /** Digests: their rules, the send path's collecting, and closing each window once. */
  digests: DigestService;
  /** The audit log: the console's changes and sign-ins, and the command line's operations. */
  audit: AuditLog;
  /** Hosted messages' remote images fetched by Herald, at addresses it signs (issue 43 §3). */
  imageProxy: ImageProxyService;
}
