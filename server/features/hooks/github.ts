import { AppError } from '../../lib/errors';
import {
  at,
  firstLine,
  isRecord,
  presetValues,
  type HookHeaders,
  type HookMessage,
  type HookPreset,
} from './hook-preset';

/** What every event's line is made of. */
interface EventFacts {
  body: Record<string, unknown>;
  sender: string;
  repo: string;
  action: string;
}

/** A branch or tag name from a full ref: `refs/heads/main` → `main`. */
const shortRef = (ref: string) => ref.replace(/^refs\/(heads|tags)\//, '');

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The event's own line, its link and its ref, for the events GitHub sends most. */
type Describe = (f: EventFacts) => { summary: string; url: string; ref?: string };

const EVENTS: Record<string, Describe> = {
  push({ body, sender, repo }) {
    const ref = at(body, 'ref');
    const kind = ref.startsWith('refs/tags/') ? 'tag' : 'branch';
    const name = shortRef(ref);
    const url = at(body, 'compare');
    if (body.deleted === true)
      return { summary: `${sender} deleted ${kind} ${name} in ${repo}`, url, ref };
    const commits = Array.isArray(body.commits) ? body.commits.length : 0;
    const head = firstLine(at(body, 'head_commit.message'));
    const what =
      body.created === true
        ? `created ${kind} ${name}`
        : `pushed ${plural(commits, 'commit')} to ${name}`;
    return { summary: `${sender} ${what} in ${repo}${head ? `: ${head}` : ''}`, url, ref };
  },
  pull_request({ body, sender, repo, action }) {
    const merged = action === 'closed' && at(body, 'pull_request.merged') === 'true';
    const number = at(body, 'pull_request.number') || at(body, 'number');
    return {
      summary: `${sender} ${merged ? 'merged' : action.replaceAll('_', ' ')} pull request #${number} in ${repo}: ${at(body, 'pull_request.title')}`,
      url: at(body, 'pull_request.html_url'),
      ref: at(body, 'pull_request.head.ref'),
    };
  },
  issues({ body, sender, repo, action }) {
    return {
      summary: `${sender} ${action} issue #${at(body, 'issue.number')} in ${repo}: ${at(body, 'issue.title')}`,
      url: at(body, 'issue.html_url'),
    };
  },
  release({ body, sender, repo, action }) {
    const tag = at(body, 'release.tag_name');
    const name = at(body, 'release.name');
    return {
      summary: `${sender} ${action} release ${tag} in ${repo}${name && name !== tag ? `: ${name}` : ''}`,
      url: at(body, 'release.html_url'),
      ref: tag,
    };
  },
  workflow_run({ body, repo, action }) {
    // A run's own name is often empty: the workflow's is the one people know.
    const name = at(body, 'workflow_run.name') || at(body, 'workflow.name') || 'workflow';
    const conclusion = at(body, 'workflow_run.conclusion');
    const branch = at(body, 'workflow_run.head_branch');
    return {
      summary: `Workflow ${name} ${action}${conclusion ? ` (${conclusion})` : ''}${branch ? ` on ${branch}` : ''} in ${repo}`,
      url: at(body, 'workflow_run.html_url'),
      ref: branch,
    };
  },
};

/** Any other event: who did what where, e.g. `octocat created star in octo/repo`. */
const fallback =
  (event: string): Describe =>
  ({ body, sender, repo, action }) => ({
    summary: `${sender || 'GitHub'} ${action ? `${action} ` : ''}${event.replaceAll('_', ' ')}${repo ? ` in ${repo}` : ''}`,
    url: at(body, 'repository.html_url'),
    ref: at(body, 'ref'),
  });

/**
 * GitHub's repository and organization webhooks (content type application/json). Placeholders:
 * event (X-GitHub-Event), repo (repository.full_name), sender (sender.login), action, ref (the
 * pushed ref as sent, a pull request's head branch, a release's tag, a run's branch), url (the
 * compare view, the pull request, issue, release or run), summary (one line, also the title).
 * `ping`, sent when the webhook is created, answers success and sends nothing.
 */
export const githubPreset: HookPreset = {
  name: 'github',
  contentType: 'json',
  toMessage(body, headers: HookHeaders): HookMessage {
    const event = (headers['x-github-event'] ?? '').trim();
    if (!event) {
      throw new AppError(400, 'X-GitHub-Event: is required (GitHub sends it with every delivery)');
    }
    if (!isRecord(body)) throw new AppError(400, 'request body must be a JSON object');
    const facts: EventFacts = {
      body,
      sender: at(body, 'sender.login'),
      repo: at(body, 'repository.full_name'),
      action: at(body, 'action'),
    };
    if (event === 'ping') {
      return { title: '', placeholders: {}, skip: `ping from hook ${at(body, 'hook_id')}` };
    }
    const { summary, url, ref } = (EVENTS[event] ?? fallback(event))(facts);
    return {
      title: summary,
      ...presetValues(body, {
        event,
        repo: facts.repo,
        sender: facts.sender,
        action: facts.action,
        ref: ref ?? at(body, 'ref'),
        url,
        summary,
      }),
    };
  },
};
