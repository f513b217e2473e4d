import type { SendOrigin } from '../sending/send-service';
import type { V1Request, V2Request } from '../../../contract';
import { Task, Template, type Schedule } from '../../db/models';
import { AppError } from '../../lib/errors';
import type { HeraldParts } from '../../parts';

/** What ScheduleRunner uses of the composed parts. */
export type ScheduleRunnerDeps = Pick<HeraldParts, 'tokens' | 'sends'>;

/**
 * Turns one run of a schedule into an ordinary send, through the same service the send APIs
 * use: a task schedule sends as a V1 call with its content, a template schedule as a V2 call
 * with its placeholder values. The send is linked to the schedule.
 */
export class ScheduleRunner {
  constructor(private readonly deps: ScheduleRunnerDeps) {}

  /** Sends once and answers the send's id; throws an AppError when the send is refused. */
  async send(schedule: Schedule): Promise<number> {
    let sendId: number | null = null;
    const origin: SendOrigin = {
      scheduleId: schedule.id,
      stored: (id) => {
        sendId = id;
      },
    };
    if (schedule.taskId !== null) await this.sendAsTask(schedule, schedule.taskId, origin);
    else if (schedule.templateId !== null)
      await this.sendAsTemplate(schedule, schedule.templateId, origin);
    else {
      throw new AppError(
        409,
        `schedule ${schedule.id} has no task or template (it was deleted): edit the schedule and pick one`,
      );
    }
    if (sendId === null) throw new Error(`the send of schedule ${schedule.id} was not stored`);
    return sendId;
  }

  private async sendAsTask(schedule: Schedule, taskId: number, origin: SendOrigin) {
    const task = await Task.findByPk(taskId);
    if (!task) throw new AppError(409, `task ${taskId} of this schedule no longer exists`);
    // The task's current token: the send goes through exactly the checks a caller's would.
    const req: V1Request = {
      token: this.deps.tokens.encode({
        kind: 'task',
        id: task.id,
        generation: task.tokenGeneration,
      }),
      title: schedule.title,
      text: schedule.text,
      html: schedule.html,
      markdown: schedule.markdown,
      url: schedule.url,
      at_mobiles: schedule.atMobiles,
      at_userids: schedule.atUserIds,
      at_all: schedule.atAll,
      ...(schedule.recipients.length > 0 ? { recipients: schedule.recipients } : {}),
      // Nobody waits on a scheduled run: its outcome is in the send log.
      mode: 'async',
    };
    const answer = await this.deps.sends.sendV1(
      req,
      await this.deps.sends.resolveTask(req),
      origin,
    );
    if (answer.code !== 200) throw new AppError(500, answer.msg);
  }

  private async sendAsTemplate(schedule: Schedule, templateId: number, origin: SendOrigin) {
    const template = await Template.findByPk(templateId);
    if (!template)
      throw new AppError(409, `template ${templateId} of this schedule no longer exists`);
    const req: V2Request = {
      token: this.deps.tokens.encode({
        kind: 'template',
        id: template.id,
        generation: template.tokenGeneration,
      }),
      title: schedule.title,
      placeholders: schedule.placeholders,
      url: schedule.url,
      ...(schedule.recipients.length > 0 ? { recipients: schedule.recipients } : {}),
    };
    const answer = await this.deps.sends.sendV2(
      req,
      await this.deps.sends.resolveTemplate(req),
      origin,
    );
    if (answer.code !== 200) throw new AppError(500, answer.msg);
  }
}
