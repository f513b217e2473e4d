/**
 * The server's refusals in sentences for people. The console API words its msgs for scripts
 * and logs: a field's key first ("code: is not correct"), ids ("task "Nightly" (id 1)"), and
 * English only. The console shows the ones it knows as sentences in the person's language and
 * passes any other through, with a field key it knows turned into its label. The server's msgs
 * stay as they are: scripts, the send API's contract (docs/send-api.md) and the logs read them.
 */

/** vue-i18n's t(), or anything that answers a key with its text. */
export type Translate = (key: string, params?: Record<string, unknown>) => string;

/** What a rule makes of its match: a key of `errors` and its parameters. */
type Wording = (
  m: RegExpExecArray,
  t: Translate,
) => { key: string; params?: Record<string, unknown> };

const ROLES = new Set(['admin', 'editor', 'viewer']);
const THINGS = new Set([
  'channel',
  'task',
  'template',
  'schedule',
  'send',
  'delivery',
  'message',
  'instance',
  'user',
]);

const role = (name: string | undefined, t: Translate) =>
  name && ROLES.has(name) ? t(`users.roles.${name}`) : (name ?? '');
const thing = (name: string | undefined, t: Translate) =>
  name && THINGS.has(name) ? t(`errors.things.${name}`) : (name ?? '');

/** "3 seconds", "5 minutes" (login-throttle's describeWait) in the person's language. */
function wait(text: string, t: Translate): string {
  const m = /^(\d+) (second|minute)s?$/.exec(text);
  if (!m) return text;
  const n = Number(m[1]);
  if (m[2] === 'minute') return t('errors.minutes', { n });
  return t(n === 1 ? 'errors.second' : 'errors.seconds', { n });
}

/** `task "Nightly" (id 1), template "Disk" (id 2)` as `task “Nightly”, template “Disk”`. */
function uses(text: string, t: Translate): string {
  const found = [...text.matchAll(/(task|template) "((?:[^"\\]|\\.)*)" \(id \d+\)/g)];
  if (found.length === 0) return text;
  return found
    .map((u) => t('errors.use', { kind: thing(u[1], t), name: u[2] }))
    .join(t('errors.listSeparator'));
}

/** The first rule that matches words the msg; order matters where patterns overlap. */
const RULES: readonly (readonly [RegExp, Wording])[] = [
  [/^wrong username or password$/, () => ({ key: 'errors.wrongSignIn' })],
  [
    /^[\w.]+: is not correct; use the current code from your authenticator app/,
    () => ({ key: 'errors.wrongTwoFactorCode' }),
  ],
  [/^setupCode: is not correct/, () => ({ key: 'errors.wrongSetupCode' })],
  [/^(password|currentPassword): is not correct$/, () => ({ key: 'errors.wrongPassword' })],
  [
    /^too many [\w -]+; try again in (.+)$/,
    (m, t) => ({ key: 'errors.tooManyTries', params: { wait: wait(m[1]!, t) } }),
  ],
  [/^not signed in$/, () => ({ key: 'errors.notSignedIn' })],
  [/^this account is disabled; ask an administrator$/, () => ({ key: 'errors.accountDisabled' })],
  [
    /^forbidden: this needs the (\w+) role; you are (\w+)$/,
    (m, t) => ({ key: 'errors.forbidden', params: { need: role(m[1], t), role: role(m[2], t) } }),
  ],
  [/^Herald is already set up; sign in instead$/, () => ({ key: 'errors.alreadySetUp' })],
  [/^this invite link is unknown, was used, or has expired/, () => ({ key: 'errors.inviteGone' })],
  [/^this account has a password; set a new one/, () => ({ key: 'errors.hasPassword' })],
  [
    /^two-factor: your administrator requires it; set it up under Account$/,
    () => ({ key: 'errors.twoFactorFirst' }),
  ],
  [
    /^two-factor: your administrator requires it, so it cannot be turned off$/,
    () => ({ key: 'errors.twoFactorRequired' }),
  ],
  [/^two-factor: it is off; turn it on first$/, () => ({ key: 'errors.twoFactorOff' })],
  [/^two-factor: it is already on;/, () => ({ key: 'errors.twoFactorOn' })],
  [/^two-factor: nothing is set up;/, () => ({ key: 'errors.twoFactorNotStarted' })],
  [/^username: is taken$/, () => ({ key: 'errors.usernameTaken' })],
  [/^name: "(.*)" is already taken$/, (m) => ({ key: 'errors.nameTaken', params: { name: m[1] } })],
  [
    /^the last administrator cannot be (deleted|disabled|demoted);/,
    (m) => ({ key: `errors.lastAdmin.${m[1]}` }),
  ],
  [
    /^channel "(.*)" is used by (.+); remove those instances first$/,
    (m, t) => ({ key: 'errors.channelInUse', params: { name: m[1], uses: uses(m[2]!, t) } }),
  ],
  [
    /^(task|template) \d+ of this schedule no longer exists$/,
    (m, t) => ({ key: 'errors.scheduleSourceGone', params: { thing: thing(m[1], t) } }),
  ],
  [/^delivery \d+ was already sent$/, () => ({ key: 'errors.deliverySent' })],
  [/^delivery \d+ is being sent right now$/, () => ({ key: 'errors.deliverySending' })],
  [/^type: a channel's type cannot change/, () => ({ key: 'errors.typeFixed' })],
  [/^runAt: .+ has passed;/, () => ({ key: 'errors.runAtPassed' })],
  [
    // "task 3 does not exist", "user 3 not found", "taskId: task 3 does not exist", …
    /^(?:\w+: )?(\w+) \d+ (?:does not exist|not found)$/,
    (m, t) => ({ key: 'errors.gone', params: { thing: thing(m[1], t) } }),
  ],
  [/^Network error\b/, () => ({ key: 'errors.network' })],
];

/** Field keys the console has a label for, as the server names them. */
const FIELDS = new Set([
  'name',
  'username',
  'password',
  'recipient',
  'recipients',
  'config',
  'cron',
  'timezone',
  'runAt',
  'title',
  'text',
  'html',
  'markdown',
  'placeholders',
  'url',
  'code',
]);

/** A field-prefixed msg no rule knows: its known field keys as labels, the rest as sent. */
function labelFields(msg: string, t: Translate): string {
  const m = /^([a-zA-Z][\w]*(?:, [a-zA-Z][\w]*)*): (.+)$/s.exec(msg);
  if (!m) return msg;
  const keys = m[1]!.split(', ');
  if (!keys.every((k) => FIELDS.has(k))) return msg;
  const label = keys.map((k) => t(`errors.fields.${k}`)).join(t('errors.listSeparator'));
  return t('errors.aboutField', { field: label, detail: m[2] });
}

/** The msg of a refusal as the console shows it: a sentence where one is known. */
export function wordError(msg: string, t: Translate): string {
  for (const [pattern, word] of RULES) {
    const m = pattern.exec(msg);
    if (m) {
      const { key, params } = word(m, t);
      return t(key, params ?? {});
    }
  }
  return labelFields(msg, t);
}
