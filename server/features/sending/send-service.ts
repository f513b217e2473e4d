import type { Task, Template } from '../../db/models';
import { AppError } from '../../lib/errors';
import type { HeraldParts } from '../../parts';
import type { V1Request, V2Request } from '../../../contract';
import type {
  AttachmentByUrl,
  AttachmentService,
  StagedUpload,
} from '../attachments/attachment-service';
import type { DigestCollector } from '../digests/digest-service';
import { CredentialResolver } from './credential-resolver';
import { withIdempotency } from './idempotency';
import type { RateLimiter } from './rate-limiter';
import type { SendFiles, SendOrigin } from './send-rows';
import { SourceLookup } from './source-lookup';
import { sendV1 } from './v1-send';
import { sendV2, V2_MSG } from './v2-send';

/** What a send answers (the envelope's fields), and what an idempotency key replays. */
export interface SendResponse {
  code: number;
  msg: string;
  data: unknown;
}

/** What a call to a send API or a hook carries besides its body. */
export interface SendCall {
  /** The key a repeat of this call is recognised by (trimmed); undefined: none was given. */
  idempotencyKey: string | undefined;
  /** Files uploaded with it (multipart), staged; stored with the send (issue 43 §2). */
  uploads?: readonly StagedUpload[];
}

/**
 * The V2 request a hook's payload makes, or `skip`: a sender's check (GitHub's ping) that
 * carries no message.
 */
export type HookRequest = V2Request | { skip: string };

/** What a hook's `prepare` answers: the request, and the key a verified signature settled. */
export interface PreparedHook {
  request: HookRequest;
  /**
   * The delivery's key when its signature covers one (Standard Webhooks' `webhook-id`): it
   * replaces the call's Idempotency-Key, which is not signed, so a captured request sent again
   * with a fresh key is still a repeat.
   */
  signedKey?: string;
}

/**
 * One run of a schedule: the task (or template) it sends to, and what a V1 (or V2) request
 * would carry besides the token. Herald sends it itself: no rate limit, no Idempotency-Key.
 */
export type ScheduledSend =
  | { taskId: number; message: Omit<V1Request, 'token' | 'task_id'> }
  | { templateId: number; message: Omit<V2Request, 'token'> };

/** What SendService uses of the composed parts, and the send rate limiter. */
export type SendServiceDeps = Pick<
  HeraldParts,
  | 'deliveries'
  | 'dispatcher'
  | 'registry'
  | 'settings'
  | 'tokens'
  | 'listenUrl'
  | 'clock'
  | 'writeLock'
> & {
  limiter: RateLimiter;
  /** Files sent with a message; unset, a send with files is refused. */
  attachments?: AttachmentService;
  /** Digests that collect a task's or template's sends (issue 46 §2); unset, none do. */
  digests?: DigestCollector;
};

/**
 * Every send's pipeline, for V1, V2, hooks and schedules: resolve the credential, count the
 * send against its task's or template's rate limit, run it at most once per Idempotency-Key,
 * then plan, store (a dedup key's window is taken there) and answer. A refused credential is
 * never counted or stored. The routers only translate HTTP; the modules beside this one hold
 * each step, and this class holds what lives as long as Herald: the lookups kept per task and
 * template, and the rate limiter.
 */
export class SendService {
  private readonly credentials: CredentialResolver;

  constructor(private readonly deps: SendServiceDeps) {
    this.credentials = new CredentialResolver(deps, new SourceLookup(deps));
  }

  /** POST /api/v1/message/send: the task the request's token or task_id opens. */
  async sendV1(req: V1Request, call: SendCall): Promise<SendResponse> {
    const task = await this.credentials.resolveTask(req);
    await this.checkRate(task.rateKey);
    return withIdempotency(this.deps, `v1:${task.credential}`, call.idempotencyKey, () =>
      this.withFiles(req.attachments, call, (files) =>
        sendV1(this.deps, req, task, undefined, files),
      ),
    );
  }

  /** POST /api/v2/message/send: the template the request's token opens. */
  async sendV2(req: V2Request, call: SendCall): Promise<SendResponse> {
    const template = await this.credentials.resolveTemplate(req);
    await this.checkRate(template.rateKey);
    return withIdempotency(this.deps, `v2:${template.credential}`, call.idempotencyKey, () =>
      this.withFiles(req.attachments, call, (files) =>
        sendV2(this.deps, req, template, undefined, files),
      ),
    );
  }

  /**
   * An inbound hook: a V2 send of the template the token opens. `prepare` turns the payload
   * into the request once the template is known (checking its hook secret's signature first);
   * a sender's check it skips is answered as a send to no instance, and is neither counted
   * nor stored. Its Idempotency-Key (or the signed key that replaces it) is remembered apart
   * from V2's.
   */
  async sendHook(
    token: string,
    call: SendCall,
    prepare: (template: Template) => PreparedHook,
  ): Promise<SendResponse> {
    const template = await this.credentials.resolveTemplate({ token });
    const { request: req, signedKey } = prepare(template.source);
    if ('skip' in req) {
      // A sender's check should fail where its messages would: it is how its owner finds out.
      if (!template.source.enabled) throw new AppError(400, V2_MSG.templateDisabled);
      return { code: 200, msg: 'success', data: { token, count: 0 } };
    }
    await this.checkRate(template.rateKey);
    const key = signedKey ?? call.idempotencyKey;
    return withIdempotency(this.deps, `hook:${template.credential}`, key, () =>
      this.withFiles(req.attachments, call, (files) =>
        sendV2(this.deps, req, template, undefined, files),
      ),
    );
  }

  /**
   * A schedule's run, as a V1 call (task) or a V2 call (template) with the current token
   * would send it: the same checks and answers, recorded as sent with that token (the
   * request's token shortened, as every logged request's is). Null when the task or template
   * no longer exists.
   */
  async sendScheduled(send: ScheduledSend, origin: SendOrigin): Promise<SendResponse | null> {
    if ('taskId' in send) {
      const task = await this.credentials.taskById(send.taskId);
      if (!task) return null;
      const req: V1Request = { token: this.currentToken('task', task.source), ...send.message };
      return sendV1(this.deps, req, task, origin);
    }
    const template = await this.credentials.templateById(send.templateId);
    if (!template) return null;
    const req: V2Request = {
      token: this.currentToken('template', template.source),
      ...send.message,
    };
    return sendV2(this.deps, req, template, origin);
  }

  /**
   * Runs a send with its files (issue 43 §2): they are fetched or taken from staging, checked
   * and stored first, after the credential and the rate limit (a caller Herald does not know
   * never makes it fetch anything), and removed again if the send is then refused. Stored
   * files are on disk and in the database before the send is answered.
   */
  private async withFiles(
    byUrl: readonly AttachmentByUrl[] | undefined,
    call: SendCall,
    send: (files: SendFiles | undefined) => Promise<SendResponse>,
  ): Promise<SendResponse> {
    const uploads = call.uploads ?? [];
    if (uploads.length === 0 && !byUrl?.length) return send(undefined);
    const service = this.deps.attachments;
    if (!service) throw new AppError(400, 'this Herald does not take files with a send');
    const ids = await service.accept({ uploads, byUrl: byUrl ?? [] });
    let accepted = false;
    const stored = async (sendId: number) => {
      accepted = true;
      await service.link(ids, sendId);
    };
    try {
      return await send({ ids, stored });
    } catch (err) {
      // Only a send that was refused: an accepted one keeps its files whatever came after.
      if (!accepted) await service.discard(ids);
      throw err;
    }
  }

  private currentToken(kind: 'task' | 'template', source: Task | Template): string {
    return this.deps.tokens.encode({ kind, id: source.id, generation: source.tokenGeneration });
  }

  /**
   * The send rate limit (Settings, sends per minute): keyed on the task or template the
   * credential opened, after it was checked, so spellings of one task_id, or its token and
   * task_id, share one budget, V2 and the hooks share a template's, and made-up credentials
   * never reach the limiter.
   */
  private async checkRate(rateKey: string): Promise<void> {
    const perMinute = this.deps.settings.get().rateLimitPerMinute;
    if (!(await this.deps.limiter.allow(rateKey, perMinute, this.deps.clock.now()))) {
      const per = rateKey.startsWith('template:') ? 'template' : 'task';
      throw new AppError(429, `rate limit: at most ${perMinute} sends a minute per ${per}`);
    }
  }
}
