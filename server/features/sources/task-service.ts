import { Op, UniqueConstraintError } from 'sequelize';

import { Instance, Task } from '../../db/models';
import { containsAny } from '../../db/search';
import { encodeMessageNestToken } from '../../crypto/message-nest-token';
import { AppError, conflict, notFound } from '../../lib/errors';
import { pageOf, type Paging } from '../../lib/paging';
import type { HeraldParts } from '../../parts';
import type { InstanceService } from './instance-service';

/** What TaskService uses of the composed parts. */
export type TaskServiceDeps = Pick<HeraldParts, 'sequelize' | 'writeLock' | 'tokens'>;

export class TaskService {
  constructor(
    private readonly deps: TaskServiceDeps,
    private readonly instances: InstanceService,
  ) {}

  private async counts(ids: number[]): Promise<Map<number, number>> {
    const rows = await Instance.count({ where: { taskId: ids }, group: ['taskId'] });
    return new Map(rows.map((r) => [Number(r.taskId), Number(r.count)]));
  }

  toDto(task: Task, instanceCount: number) {
    return {
      id: task.id,
      name: task.name,
      instanceCount,
      ...messageNestFields(task),
      createdAt: task.createdAt,
      updatedAt: task.updatedAt,
    };
  }

  async list(name: string | undefined, paging: Paging) {
    const where = name ? { [Op.and]: [containsAny(this.deps.sequelize, ['name'], name)] } : {};
    const { rows, count } = await Task.findAndCountAll({
      where,
      order: [['id', 'DESC']],
      limit: paging.pageSize,
      offset: paging.offset,
    });
    const counts = await this.counts(rows.map((t) => t.id));
    return pageOf(
      rows.map((t) => this.toDto(t, counts.get(t.id) ?? 0)),
      count,
      paging,
    );
  }

  async get(id: number): Promise<Task> {
    const task = await Task.findByPk(id);
    if (!task) throw notFound(`task ${id} does not exist`);
    return task;
  }

  async detail(id: number) {
    const task = await this.get(id);
    const instances = await this.instances.listFor({ kind: 'task', id });
    return { ...this.toDto(task, instances.length), instances };
  }

  async create(name: string, acceptLegacyToken = false) {
    if (acceptLegacyToken) throw noMessageNestToken('task');
    const task = await this.deps.writeLock.run(() => Task.create({ name }).catch(nameTaken(name)));
    return this.toDto(task, 0);
  }

  async update(id: number, patch: { name?: string; acceptLegacyToken?: boolean }) {
    const task = await this.get(id);
    if (patch.acceptLegacyToken && !task.legacyId) throw noMessageNestToken('task');
    await this.deps.writeLock.run(() =>
      task.update(patch).catch(nameTaken(patch.name ?? task.name)),
    );
    return this.detail(id);
  }

  /** Deletes the task and (by cascade) its instances; its token then answers 404. */
  async remove(id: number): Promise<void> {
    const task = await this.get(id);
    await this.deps.writeLock.run(() => task.destroy());
  }

  async token(id: number): Promise<string> {
    const task = await this.get(id);
    return this.deps.tokens.encode({ kind: 'task', id: task.id, generation: task.tokenGeneration });
  }

  async rotateToken(id: number): Promise<string> {
    const task = await this.get(id);
    await this.deps.writeLock.run(() => task.update({ tokenGeneration: task.tokenGeneration + 1 }));
    return this.deps.tokens.encode({ kind: 'task', id: task.id, generation: task.tokenGeneration });
  }
}

/** What the console shows of an imported task's or template's Message Nest credentials. */
export function messageNestFields(row: { legacyId: string | null; acceptLegacyToken: boolean }) {
  return {
    legacyId: row.legacyId ?? null,
    // Derived from the id, as Message Nest derives it: shown so the administrator recognises it.
    legacyToken: row.legacyId ? encodeMessageNestToken(row.legacyId) : null,
    acceptLegacyToken: row.acceptLegacyToken,
  };
}

export function noMessageNestToken(what: 'task' | 'template') {
  return new AppError(
    400,
    `acceptLegacyToken: this ${what} was not imported from Message Nest, so it has no Message Nest token to accept`,
  );
}

export function nameTaken(name: string) {
  return (err: unknown): never => {
    if (err instanceof UniqueConstraintError) throw conflict(`name: "${name}" is already taken`);
    throw err;
  };
}
