import { decodeMessageNestToken } from '../../crypto/message-nest-token';
import { TokenError, type TokenKind } from '../../crypto/tokens';
import { Task, Template } from '../../db/models';
import type { SendCredential } from '../../db/models/send';
import { AppError } from '../../lib/errors';
import type { HeraldParts } from '../../parts';
import type { V1Request, V2Request } from '../../../contract';
import type { SourceLookup, SourceTargets } from './source-lookup';
import { V2_MSG } from './v2-send';

/** A task or template a caller's credential opened, before anything is sent. */
export interface ResolvedSource<T> {
  source: T;
  targets: SourceTargets;
  /** The rate budget: every credential of one task (or template) shares it. */
  rateKey: string;
  /** The credential itself (a token's object and generation, or a task_id), for idempotency. */
  credential: string;
  /** Which kind of credential it was, recorded on the send for the log. */
  credentialKind: SendCredential;
}

/**
 * A task or template opened with its current token: one rate budget per task or template, and
 * the credential names the token's generation, so a rotated token is another caller.
 */
function openedByToken<T extends Task | Template>(
  kind: 'task' | 'template',
  source: T,
  targets: SourceTargets,
): ResolvedSource<T> {
  return {
    source,
    targets,
    rateKey: `${kind}:${source.id}`,
    credential: `token:${source.id}.${source.tokenGeneration}`,
    credentialKind: 'token',
  };
}

/** What CredentialResolver uses of the composed parts. */
export type CredentialResolverDeps = Pick<HeraldParts, 'settings' | 'tokens'>;

/**
 * Turns the credential a request carries (a token, a task_id, or an imported Message Nest
 * one) into the task or template it opens, refusing it with each API's own answer.
 */
export class CredentialResolver {
  constructor(
    private readonly deps: CredentialResolverDeps,
    private readonly lookup: SourceLookup,
  ) {}

  /** Opens the task a V1 request names; nothing is counted or stored for a refused one. */
  async resolveTask(req: V1Request): Promise<ResolvedSource<Task>> {
    // design.md: the token wins when both are sent.
    if (req.token) {
      let payload;
      try {
        payload = this.decode(
          req.token,
          'task',
          (reason) => new AppError(401, `token is invalid: ${reason}`),
        );
      } catch (err) {
        const imported = await this.messageNestSource(Task, decodeMessageNestToken(req.token));
        if (!imported) throw err;
        return this.resolvedTask(imported.id, 'legacy_token');
      }
      const { source: task, targets } = await this.lookup.task(payload.id);
      if (!task) throw new AppError(404, 'token does not exist: its task was deleted');
      if (task.tokenGeneration !== payload.generation) {
        throw new AppError(
          401,
          'token is no longer valid: it was rotated; get the current token from the console',
        );
      }
      return openedByToken('task', task, targets);
    }
    if (req.task_id !== undefined && req.task_id !== '') {
      if (!this.deps.settings.get().allowTaskId) {
        throw new AppError(401, 'task_id is turned off in settings; send the task token instead');
      }
      const id = Number(req.task_id);
      if (!Number.isSafeInteger(id) || id <= 0) {
        const imported = await this.messageNestSource(Task, String(req.task_id));
        if (imported) return this.resolvedTask(imported.id, 'legacy_task_id');
        throw new AppError(400, 'task_id: must be a positive integer');
      }
      // Keyed on the parsed id: 1, 01, 0x1 and 1.0 are one task and one budget.
      return this.resolvedTask(id, 'task_id');
    }
    throw new AppError(400, 'token: is required (or task_id)');
  }

  /** Opens the template a V2 token names: the contract's first steps (token, template). */
  async resolveTemplate(req: Pick<V2Request, 'token'>): Promise<ResolvedSource<Template>> {
    let payload;
    try {
      payload = this.decode(
        req.token,
        'template',
        (reason) => new AppError(400, `${V2_MSG.tokenParseFailed}: ${reason}`),
      );
    } catch (err) {
      const imported = await this.messageNestSource(Template, decodeMessageNestToken(req.token));
      if (!imported) throw err;
      const { source: template, targets } = await this.lookup.template(imported.id);
      if (!template) throw new AppError(400, V2_MSG.templateNotFound);
      return {
        source: template,
        targets,
        rateKey: `template:${template.id}`,
        credential: `legacy_token:${template.id}`,
        credentialKind: 'legacy_token',
      };
    }
    const { source: template, targets } = await this.lookup.template(payload.id);
    if (!template) throw new AppError(400, V2_MSG.templateNotFound);
    if (template.tokenGeneration !== payload.generation) {
      throw new AppError(400, `${V2_MSG.tokenParseFailed}: 令牌已轮换 (the token was rotated)`);
    }
    return openedByToken('template', template, targets);
  }

  /**
   * Opens a task by its id for a send Herald makes itself (a schedule's run); null when the
   * task no longer exists. The run sends with the task's current token, so it is keyed and
   * recorded as a call with that token would be.
   */
  async taskById(id: number): Promise<ResolvedSource<Task> | null> {
    const { source: task, targets } = await this.lookup.task(id);
    return task ? openedByToken('task', task, targets) : null;
  }

  /** Opens a template by its id, as taskById opens a task. */
  async templateById(id: number): Promise<ResolvedSource<Template> | null> {
    const { source: template, targets } = await this.lookup.template(id);
    return template ? openedByToken('template', template, targets) : null;
  }

  private decode(token: string, kind: TokenKind, fail: (reason: string) => AppError) {
    try {
      return this.deps.tokens.decode(token, kind);
    } catch (err) {
      if (err instanceof TokenError) throw fail(err.message);
      throw err;
    }
  }

  /**
   * The imported task or template a Message Nest id names, when its administrator lets the
   * Message Nest credentials send; null otherwise, so the caller answers exactly as without them.
   */
  private async messageNestSource<T extends typeof Task | typeof Template>(
    model: T,
    legacyId: string | null,
  ): Promise<{ id: number } | null> {
    if (!legacyId) return null;
    const row = await (model as typeof Task).findOne({
      where: { legacyId, acceptLegacyToken: true },
      attributes: ['id'],
    });
    return row ? { id: row.id } : null;
  }

  private async resolvedTask(
    id: number,
    kind: 'task_id' | 'legacy_token' | 'legacy_task_id',
  ): Promise<ResolvedSource<Task>> {
    const { source: task, targets } = await this.lookup.task(id);
    if (!task) throw new AppError(404, `task ${id} does not exist`);
    return {
      source: task,
      targets,
      rateKey: `task:${task.id}`,
      credential: `${kind}:${task.id}`,
      credentialKind: kind,
    };
  }
}
