import { describe, expect, it } from 'vitest';

import { cronInWords } from '../../renderer/src/lib/cron-words';

/** Expression → [English, Chinese]. */
const WORDED: Array<[string, string, string]> = [
  ['0 9 * * 1-5', 'Weekdays 09:00', '工作日 09:00'],
  ['0 9 * * *', 'Daily 09:00', '每天 09:00'],
  ['* * * * *', 'Every minute', '每分钟'],
  ['*/5 * * * *', 'Every 5 minutes', '每 5 分钟'],
  ['0 * * * *', 'Every hour at :00', '每小时整点'],
  ['15 * * * *', 'Every hour at :15', '每小时第 15 分'],
  ['0 */2 * * *', 'Every 2 hours at :00', '每 2 小时整点'],
  ['0 2 * * 1', 'Mondays 02:00', '每周一 02:00'],
  ['0 9 * * 0,6', 'Weekends 09:00', '周末 09:00'],
  ['0 9 * * 1,3,5', 'Mondays, Wednesdays and Fridays at 09:00', '每周一、周三、周五 09:00'],
  ['0 9 * * 1-3', 'Monday to Wednesday at 09:00', '每周一至周三 09:00'],
  ['0 2 1 * *', 'Monthly on day 1 at 02:00', '每月 1 日 02:00'],
  ['0 9 1,15 * *', 'Monthly on days 1 and 15 at 09:00', '每月 1、15 日 09:00'],
  ['0 2 1 1 *', 'Every year on 1 January at 02:00', '每年 1 月 1 日 02:00'],
  ['0 9 * 3 *', 'Daily in March at 09:00', '3 月每天 09:00'],
  ['0 9,17 * * *', 'Daily 09:00 and 17:00', '每天 09:00、17:00'],
  ['30 8 * * 1-5', 'Weekdays 08:30', '工作日 08:30'],
  ['*/10 9-17 * * *', 'Every 10 minutes, between 09:00 and 17:59', '09:00–17:59 每 10 分钟'],
  [
    '30 9-17 * * 1-5',
    'Every hour at :30, between 09:00 and 17:59 on weekdays',
    '工作日 09:00–17:59 每小时第 30 分',
  ],
  ['*/15 * * * 1', 'Every 15 minutes on Mondays', '周一 每 15 分钟'],
  // The optional seconds field, names, Sunday as 7, spacing.
  ['0 0 9 * * MON-FRI', 'Weekdays 09:00', '工作日 09:00'],
  ['0 9 * * 7', 'Sundays 09:00', '每周日 09:00'],
  ['0 12 1 jan *', 'Every year on 1 January at 12:00', '每年 1 月 1 日 12:00'],
  ['  0   9 * *   1-5 ', 'Weekdays 09:00', '工作日 09:00'],
  ['0 9 * * 0-6', 'Daily 09:00', '每天 09:00'],
  // The shortcuts.
  ['@yearly', 'Every year on 1 January at 00:00', '每年 1 月 1 日 00:00'],
  ['@annually', 'Every year on 1 January at 00:00', '每年 1 月 1 日 00:00'],
  ['@monthly', 'Monthly on day 1 at 00:00', '每月 1 日 00:00'],
  ['@weekly', 'Sundays 00:00', '每周日 00:00'],
  ['@daily', 'Daily 00:00', '每天 00:00'],
  ['@midnight', 'Daily 00:00', '每天 00:00'],
  ['@HOURLY', 'Every hour at :00', '每小时整点'],
];

describe('cronInWords', () => {
  it.each(WORDED)('words %s in English and Chinese', (cron, en, zh) => {
    expect(cronInWords(cron, 'en')).toBe(en);
    expect(cronInWords(cron, 'zh-CN')).toBe(zh);
  });

  it.each([
    // Seconds other than 0, a day of the month and of the week together (cron runs on either),
    // stepped ranges, too many times to list, steps over days: the expression is shown instead.
    '5 0 9 * * *',
    '0 9 1 * 1',
    '0 9-17/2 * * *',
    '0,30 9,12,15 * * *',
    '0 9 */2 * *',
    '0 9 * * 1 extra',
    '0 25 * * *',
    '0 9 * * 1-',
    '@every 5m',
    '',
    'not cron',
  ])('leaves %j unworded', (cron) => {
    expect(cronInWords(cron, 'en')).toBeNull();
    expect(cronInWords(cron, 'zh-CN')).toBeNull();
  });
});
