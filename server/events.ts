import { EventEmitter } from 'node:events';

import type { ContentType } from './channels/channel-adapter';
import type { DeliveryStatus } from './db/models/delivery';
import type { SendStatus } from './db/models/send';

export interface HostedMessageEvent {
  id: number;
  title: string;
  content: string;
  format: ContentType;
  url: string | null;
  /** 1 … 5 as the sender gave it; null when none was given. */
  priority: number | null;
  createdAt: string;
}

export interface ReadsEvent {
  userId: number;
  /** The message marked, or null for read-all. */
  id: number | null;
  read: boolean;
  /** The person's unread count after the change. */
  unreadCount: number;
}

export interface HeraldEventMap {
  message: [HostedMessageEvent];
  /**
   * A person changed their read state (`id` null: they read everything): only that person's
   * console streams and a desktop window signed in as them follow it.
   */
  reads: [ReadsEvent];
  /**
   * A hosted message was deleted: whoever shows it or counts it unread (every person's streams,
   * the desktop window) reads the list and the count again.
   */
  messageDeleted: [{ id: number }];
  /**
   * Retention deleted `count` hosted messages created before `before` (ISO): as messageDeleted,
   * once per prune run rather than once per message.
   */
  messagesPruned: [{ count: number; before: string }];
  delivery: [{ id: number; sendId: number; status: DeliveryStatus }];
  send: [{ id: number; status: SendStatus }];
  /** A schedule was created, changed or deleted: the scheduler looks at its due times again. */
  schedule: [{ id: number }];
  /**
   * A schedule ran (or its run was skipped, or Run now sent it): its next run, last run, last
   * send or last error changed. Apart from `schedule` so that the scheduler, which emits it,
   * does not wake itself; the console's streams announce both.
   */
  scheduleRun: [{ id: number }];
  /**
   * What a process keeps in memory changed: the settings, or the channels, tasks, templates and
   * instances the send path caches. Only the relay between processes listens (several
   * processes on PostgreSQL): the others read it again.
   */
  configuration: [{ what: 'settings' | 'sources' }];
}

/** In-process events: the console's SSE stream and the desktop shell (tray, notifications) listen. */
export class HeraldEvents extends EventEmitter<HeraldEventMap> {
  constructor() {
    super();
    // Every open console tab holds a listener; the default cap of 10 would warn.
    this.setMaxListeners(0);
  }
}
