import type { Sequelize } from 'sequelize';

import type { ChannelServices } from './channels/channel-adapter';
import type { ChannelRegistry } from './channels/registry';
import type { SettingsStore } from './config/settings-store';
import type { SecretBox } from './crypto/secret-box';
import type { TokenCodec } from './crypto/tokens';
import type { SetupCode } from './api/console/auth/setup-code';
import type { WriteLock } from './db/writer';
import type { HeraldEvents } from './events';
import type { Clock } from './lib/clock';
import type { DeliveryState } from './queue/delivery-state';
import type { Dispatcher } from './queue/dispatcher';

/** Everything the routers and services share; built once by startServer, injected everywhere. */
export interface AppContext {
  sequelize: Sequelize;
  /** Every write goes through the one writer (server/db/writer.ts). */
  writeLock: WriteLock;
  /** The one owner of delivery and send status (server/queue/delivery-state.ts). */
  deliveries: DeliveryState;
  registry: ChannelRegistry;
  channelServices: ChannelServices;
  clock: Clock;
  events: HeraldEvents;
  dispatcher: Dispatcher;
  tokens: TokenCodec;
  secrets: SecretBox;
  settings: SettingsStore;
  dataDir: string;
  version: string;
  /** The address the server listens on, for the console's About page. */
  listenUrl(): string;
  /** One-time secret the desktop window signs in with; consumed on use. */
  desktopSecret: { value: string | null };
  /** The one-time code that creates the first administrator; empty once one exists. */
  setupCode: SetupCode;
  /** Express 'trust proxy': the proxies whose X-Forwarded-* headers count (HERALD_TRUST_PROXY). */
  trustProxy: string[] | false;
}
