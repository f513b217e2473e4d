import { Router } from 'express';

import type { z } from 'zod';

import { consoleEventSchemas, consoleRoutes, type ConsoleEventName } from '../../../../contract';
import type { HeraldEventMap, HostedMessageEvent } from '../../../events';
import { AppError } from '../../../lib/errors';
import type { HeraldParts } from '../../../parts';
import type { Sendable } from '../../contract-route';
import { consoleRoutesOn } from '../console-route';
import type { LiveStreams } from './live-streams';

const HEARTBEAT_MS = 25_000;

/** GET /events: Server-Sent Events for the console (new hosted messages, the person's reads, delivery, send and schedule changes). */
export type EventRouterDeps = Pick<HeraldParts, 'events'>;

export function createEventRouter(deps: EventRouterDeps, streams: LiveStreams): Router {
  const router = Router();
  consoleRoutesOn(router)(consoleRoutes.events.stream, (_input, req, res) => {
    const headers = {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    };
    // Node writes no body for HEAD, so its headers would wait for an end that a stream never
    // reaches: the caller hung and its listeners stayed. HEAD gets the headers and ends.
    if (req.method === 'HEAD') {
      res.writeHead(200, headers).end();
      return;
    }
    let cleanup = () => {};
    const unregister = streams.add(req.sessionKey!, req.user!.id, () => {
      cleanup();
      res.end();
    });
    if (!unregister) {
      throw new AppError(
        429,
        `this session already has ${streams.maxPerSession} live streams open; close some console tabs or windows and reload`,
      );
    }
    res.writeHead(200, headers);
    res.write('retry: 3000\n\n');
    // Each event's data is what the contract's consoleEventSchemas describe.
    const send = <E extends ConsoleEventName>(
      event: E,
      data: Sendable<z.input<(typeof consoleEventSchemas)[E]>>,
    ) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const onMessage = (m: HostedMessageEvent) =>
      send('message', {
        id: m.id,
        title: m.title,
        format: m.format,
        priority: m.priority,
        createdAt: m.createdAt,
      });
    const userId = req.user!.id;
    // Read state is per person: another person's reads are not this stream's business.
    const onReads = (r: HeraldEventMap['reads'][0]) => {
      if (r.userId === userId) send('read', { id: r.id, read: r.read, unreadCount: r.unreadCount });
    };
    const onMessageDeleted = (m: { id: number }) => send('messageDeleted', { id: m.id });
    const onMessagesPruned = (p: HeraldEventMap['messagesPruned'][0]) =>
      send('messagesPruned', { count: p.count, before: p.before });
    const onDelivery = (d: HeraldEventMap['delivery'][0]) => send('delivery', d);
    const onSend = (s: HeraldEventMap['send'][0]) => send('send', s);
    // An id and nothing else: every signed-in person may hear that a schedule changed or ran.
    const onSchedule = (c: { id: number }) => send('schedule', { id: c.id });
    deps.events.on('message', onMessage);
    deps.events.on('reads', onReads);
    deps.events.on('messageDeleted', onMessageDeleted);
    deps.events.on('messagesPruned', onMessagesPruned);
    deps.events.on('delivery', onDelivery);
    deps.events.on('send', onSend);
    deps.events.on('schedule', onSchedule);
    deps.events.on('scheduleRun', onSchedule);
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    cleanup = () => {
      unregister();
      clearInterval(heartbeat);
      deps.events.off('message', onMessage);
      deps.events.off('reads', onReads);
      deps.events.off('messageDeleted', onMessageDeleted);
      deps.events.off('messagesPruned', onMessagesPruned);
      deps.events.off('delivery', onDelivery);
      deps.events.off('send', onSend);
      deps.events.off('schedule', onSchedule);
      deps.events.off('scheduleRun', onSchedule);
    };
    // The response, not the request: its close fires both when the client goes away and when
    // the server ends the stream.
    res.on('close', () => cleanup());
  });
  return router;
}
