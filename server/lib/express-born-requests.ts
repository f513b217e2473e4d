import {
  IncomingMessage as NodeIncomingMessage,
  ServerResponse as NodeServerResponse,
} from 'node:http';

import type { Express } from 'express';

type Initialiser = (this: unknown, ...args: unknown[]) => void;

/** Node's constructor as a plain function to call on an object, if it is one (not a class). */
function callable(constructor: unknown): Initialiser | undefined {
  return typeof constructor === 'function' &&
    !Function.prototype.toString.call(constructor).startsWith('class')
    ? (constructor as Initialiser)
    : undefined;
}

/**
 * Request and response classes for node:http whose objects are born with the app's Express
 * prototypes (app.request, app.response). Express gives every request and response those
 * prototypes with Object.setPrototypeOf in app.handle; changing the prototype of an object
 * already built throws away V8's optimised access to it in all the code that touches it after
 * (node:http, streams, Express, body-parser): it cost a bare Express app more than half of its
 * CPU per request (200-230 → 90-115 µs, 64 connections, JSON body). Given an object that
 * already has the prototype, Express's call changes nothing.
 *
 * Node's constructors are run as functions on the new object, as node's own subclasses do
 * (ServerResponse calls OutgoingMessage so); Reflect.construct with the app's prototype as
 * new.target measured slower than no classes at all. Should node make them classes, nothing
 * is returned and Express sets the prototypes as before.
 */
export function expressBornClasses(
  app: Express,
):
  | { IncomingMessage: typeof NodeIncomingMessage; ServerResponse: typeof NodeServerResponse }
  | object {
  const initRequest = callable(NodeIncomingMessage);
  const initResponse = callable(NodeServerResponse);
  if (!initRequest || !initResponse) return {};
  // Named as node's, since stack traces and logs name an object by its constructor.
  function IncomingMessage(this: unknown, socket: unknown): void {
    initRequest!.call(this, socket);
  }
  IncomingMessage.prototype = app.request;
  function ServerResponse(this: unknown, req: unknown, options: unknown): void {
    initResponse!.call(this, req, options);
  }
  ServerResponse.prototype = app.response;
  return {
    IncomingMessage: IncomingMessage as unknown as typeof NodeIncomingMessage,
    ServerResponse: ServerResponse as unknown as typeof NodeServerResponse,
  };
}
