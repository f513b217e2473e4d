import type { Sequelize } from 'sequelize';

import { Channel } from './channel';
import { Delivery } from './delivery';
import { DeliveryAttempt } from './delivery-attempt';
import { HostedMessage } from './hosted-message';
import { IdempotencyKey } from './idempotency-key';
import { ImportMap } from './import-map';
import { Instance } from './instance';
import { PushSubscription } from './push-subscription';
import { QuietHoursRuleRow } from './quiet-hours-rule';
import { Schedule } from './schedule';
import { Send } from './send';
import { Session } from './session';
import { Setting } from './setting';
import { Task } from './task';
import { Template } from './template';
import { User } from './user';

export {
  Channel,
  Delivery,
  DeliveryAttempt,
  HostedMessage,
  IdempotencyKey,
  ImportMap,
  Instance,
  PushSubscription,
  QuietHoursRuleRow,
  Schedule,
  Send,
  Session,
  Setting,
  Task,
  Template,
  User,
};

/** Binds every model to one Sequelize instance. Models are module singletons: one database per process. */
export function initModels(sequelize: Sequelize): void {
  for (const model of [
    Channel,
    Delivery,
    DeliveryAttempt,
    HostedMessage,
    IdempotencyKey,
    ImportMap,
    Instance,
    PushSubscription,
    QuietHoursRuleRow,
    Schedule,
    Send,
    Session,
    Setting,
    Task,
    Template,
    User,
  ]) {
    model.initModel(sequelize);
  }
}
