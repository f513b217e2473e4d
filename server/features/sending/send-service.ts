import type { Task, Template } from '../../db/models';
import type { HeraldParts } from '../../parts';
import { CredentialResolver, type ResolvedSource } from './credential-resolver';
import type { SendResponse } from './send-response';
import type { SendOrigin } from './send-rows';
import type { V1Request, V2Request } from '../../../contract';
import { SourceLookup } from './source-lookup';
import { sendV1 } from './v1-send';
import { sendV2 } from './v2-send';

export type { ResolvedSource } from './credential-resolver';
export type { SendResponse } from './send-response';
export type { SendOrigin } from './send-rows';

/** What SendService uses of the composed parts. */
export type SendServiceDeps = Pick<
  HeraldParts,
  'deliveries' | 'dispatcher' | 'registry' | 'settings' | 'tokens' | 'listenUrl'
>;

/**
 * Both send APIs' work, the one entry point the routes and the schedules use: resolve the
 * caller's credential first (so a refused one is never counted or stored), then send. The
 * modules beside it hold each step; this class holds what lives as long as Herald, the
 * lookups kept per task and template.
 */
export class SendService {
  private readonly credentials: CredentialResolver;

  constructor(private readonly deps: SendServiceDeps) {
    this.credentials = new CredentialResolver(deps, new SourceLookup(deps));
  }

  /** Opens the task a V1 request names; nothing is counted or stored for a refused one. */
  resolveTask(req: V1Request): Promise<ResolvedSource<Task>> {
    return this.credentials.resolveTask(req);
  }

  /** Opens the template a V2 token names: the contract's first steps (token, template). */
  resolveTemplate(req: Pick<V2Request, 'token'>): Promise<ResolvedSource<Template>> {
    return this.credentials.resolveTemplate(req);
  }

  sendV1(
    req: V1Request,
    resolved: ResolvedSource<Task>,
    origin?: SendOrigin,
  ): Promise<SendResponse> {
    return sendV1(this.deps, req, resolved, origin);
  }

  sendV2(
    req: V2Request,
    resolved: ResolvedSource<Template>,
    origin?: SendOrigin,
  ): Promise<SendResponse> {
    return sendV2(this.deps, req, resolved, origin);
  }
}
