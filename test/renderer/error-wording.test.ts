import { afterEach, describe, expect, it } from 'vitest';

import { ApiError } from '../../renderer/src/api/http-client';
import { createAppI18n } from '../../renderer/src/i18n';
import { wordError } from '../../renderer/src/lib/error-wording';
import { errorText, setErrorWording } from '../../renderer/src/lib/feedback';

const en = createAppI18n('en').global.t;
const zh = createAppI18n('zh-CN').global.t;

/** Msgs exactly as the server words them (server/features, server/api/console). */
const cases: readonly [msg: string, english: string, chinese: string][] = [
  [
    'code: is not correct; use the current code from your authenticator app, or an unused recovery code',
    'That code is not correct. Use the current code from your authenticator app, or an unused recovery code.',
    '验证码不正确。请使用验证器应用当前显示的验证码，或一个未用过的恢复码。',
  ],
  ['currentPassword: is not correct', 'Your current password is not correct.', '当前密码不正确。'],
  [
    'wrong username or password',
    'The username or password is not correct.',
    '用户名或密码不正确。',
  ],
  [
    'too many failed sign-ins; try again in 1 second',
    'Too many wrong tries. Try again in 1 second.',
    '错误次数过多，请 1 秒后再试。',
  ],
  [
    'too many wrong codes; try again in 15 minutes',
    'Too many wrong tries. Try again in 15 minutes.',
    '错误次数过多，请 15 分钟后再试。',
  ],
  [
    'channel "Ops hook" is used by task "Backups" (id 1), template "Disk alert" (id 12); remove those instances first',
    'The channel “Ops hook” is still used by task “Backups”, template “Disk alert”. Remove those instances first.',
    '渠道“Ops hook”仍被任务“Backups”、模板“Disk alert”使用，请先删除这些实例。',
  ],
  [
    'the last administrator cannot be deleted; make another account admin first',
    'The last administrator cannot be deleted. Make another account an administrator first.',
    '不能删除最后一位管理员。请先将另一个账号设为管理员。',
  ],
  [
    'forbidden: this needs the admin role; you are viewer',
    'This needs the Admin role, and you are Viewer. Ask an administrator.',
    '此操作需要“管理员”角色，你当前是“查看者”。请联系管理员。',
  ],
  [
    'task 7 does not exist',
    'This task no longer exists; someone may have deleted it. Refresh the page.',
    '此任务已不存在，可能已被他人删除。请刷新页面。',
  ],
  [
    'templateId: template 3 does not exist',
    'This template no longer exists; someone may have deleted it. Refresh the page.',
    '此模板已不存在，可能已被他人删除。请刷新页面。',
  ],
  [
    'user 4 not found',
    'This account no longer exists; someone may have deleted it. Refresh the page.',
    '此账号已不存在，可能已被他人删除。请刷新页面。',
  ],
  ['username: is taken', 'That username is taken. Choose another.', '该用户名已被占用，请换一个。'],
  [
    'name: "Nightly" is already taken',
    'The name “Nightly” is already taken. Choose another.',
    '名称“Nightly”已被占用，请换一个。',
  ],
  [
    'Network error: Failed to fetch',
    'Herald could not be reached. Check that it is running, then try again.',
    '无法连接到 Herald。请确认它正在运行，然后重试。',
  ],
];

describe('wordError()', () => {
  it.each(cases)('wordError() words "%s" in English', (msg, english) => {
    expect(wordError(msg, en)).toBe(english);
  });

  it.each(cases)('wordError() words "%s" in Chinese', (msg, _english, chinese) => {
    expect(wordError(msg, zh)).toBe(chinese);
  });

  it('wordError() never leaves a raw id or field key in a sentence it words', () => {
    for (const [msg] of cases) {
      for (const t of [en, zh]) {
        const worded = wordError(msg, t);
        expect(worded).not.toMatch(/\(id \d+\)|^\w+: /);
        expect(worded).not.toMatch(/errors\./);
      }
    }
  });

  it('wordError() labels a field it knows and keeps the server’s detail', () => {
    expect(wordError('recipient: must be an email address', en)).toBe(
      'Recipient: must be an email address',
    );
    expect(wordError('cron: bad minute field', zh)).toBe('Cron 表达式：bad minute field');
  });

  it('wordError() passes a msg it does not know through as sent', () => {
    expect(wordError('webhook answered 502', en)).toBe('webhook answered 502');
    // The send API's contract strings are not the console's to reword.
    expect(wordError('模板已禁用', zh)).toBe('模板已禁用');
    expect(wordError('someKey: odd', en)).toBe('someKey: odd');
  });
});

describe('errorText() with the wording installed', () => {
  afterEach(() => setErrorWording(null));

  it('errorText() words an ApiError’s msg and leaves other errors alone', () => {
    setErrorWording((msg) => wordError(msg, en));
    expect(errorText(new ApiError(409, 'username: is taken'))).toBe(
      'That username is taken. Choose another.',
    );
    expect(errorText(new Error('username: is taken'))).toBe('username: is taken');
  });

  it('errorText() shows the msg as sent without it', () => {
    expect(errorText(new ApiError(409, 'username: is taken'))).toBe('username: is taken');
  });
});
