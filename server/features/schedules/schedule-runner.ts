import type { SendOrigin } from '../sending/send-rows';
import type { SendResponse } from '../sending/send-service';
import type { Schedule } from '../../db/models';
import { AppError } from '../../lib/errors';
import type { HeraldParts } from '../../parts';

/** What ScheduleRunner uses of the composed parts. */
export type ScheduleRunnerDeps = Pick<HeraldParts, 'sends'>;

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
    const answer = await this.deps.sends.sendScheduled(
      {
        taskId,
        message: {
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
        },
      },
      origin,
    );
    if (!answer) throw new AppError(409, `task ${taskId} of this schedule no longer exists`);
    failUnlessAccepted(answer);
  }

  private async sendAsTemplate(schedule: Schedule, templateId: number, origin: SendOrigin) {
    const answer = await this.deps.sends.sendScheduled(
      {
        templateId,
        message: {
          title: schedule.title,
          placeholders: schedule.placeholders,
          url: schedule.url,
          ...(schedule.recipients.length > 0 ? { recipients: schedule.recipients } : {}),
        },
      },
      origin,
    );
    if (!answer) {
      throw new AppError(409, `template ${templateId} of this schedule no longer exists`);
    }
    failUnlessAccepted(answer);
  }
}

/** An answer other than 200 (a V1 send whose every delivery failed) fails the run. */
function failUnlessAccepted(answer: SendResponse): void {
  if (answer.code !== 200) throw new AppError(500, answer.msg);
}
