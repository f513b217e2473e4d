import sqlite3 from 'sqlite3';

/**
 * A Message Nest v2.2.4 database as its GORM AutoMigrate creates it on SQLite (fact sheet §2),
 * with rows of every channel kind. Secret values all start with `mnsecret` so a test can look
 * for any of them in Herald's files.
 */
export type Row = Record<string, string | number | null>;

const AUDIT =
  '`created_by` varchar(100) DEFAULT "",`modified_by` varchar(100) DEFAULT "",`created_on` datetime,`modified_on` datetime';

export function sqliteDdl(p: string): string[] {
  return [
    `CREATE TABLE \`${p}auth\` (\`id\` integer PRIMARY KEY AUTOINCREMENT,\`username\` varchar(100),\`password\` varchar(100))`,
    `CREATE TABLE \`${p}send_tasks\` (\`id\` varchar(12),${AUDIT},\`name\` varchar(100),PRIMARY KEY (\`id\`))`,
    `CREATE TABLE \`${p}send_ways\` (\`id\` varchar(12),${AUDIT},\`name\` varchar(100),\`type\` varchar(100),\`auth\` varchar(2048),PRIMARY KEY (\`id\`))`,
    `CREATE INDEX \`idx_${p}send_ways_type\` ON \`${p}send_ways\`(\`type\`)`,
    `CREATE TABLE \`${p}send_tasks_ins\` (\`id\` varchar(12),${AUDIT},\`task_id\` varchar(12),\`template_id\` varchar(12),\`way_id\` varchar(12),\`way_type\` varchar(100),\`content_type\` varchar(100),\`config\` text,\`extra\` text,\`enable\` integer DEFAULT 1,PRIMARY KEY (\`id\`))`,
    `CREATE INDEX \`idx_${p}send_tasks_ins_task_id\` ON \`${p}send_tasks_ins\`(\`task_id\`)`,
    `CREATE TABLE \`${p}send_tasks_logs\` (\`id\` integer PRIMARY KEY AUTOINCREMENT,\`task_id\` varchar(12),\`type\` varchar(20) DEFAULT "task",\`name\` varchar(256),\`log\` text,\`status\` integer DEFAULT 0,\`caller_ip\` varchar(256),\`created_on\` datetime,\`modified_on\` datetime)`,
    `CREATE INDEX \`task_id\` ON \`${p}send_tasks_logs\`(\`task_id\`)`,
    `CREATE TABLE \`${p}settings\` (\`id\` integer PRIMARY KEY AUTOINCREMENT,${AUDIT},\`section\` varchar(100),\`key\` varchar(100),\`value\` text)`,
    `CREATE TABLE \`${p}cron_messages\` (\`id\` varchar(12),${AUDIT},\`name\` varchar(200),\`task_id\` varchar(36),\`cron\` varchar(4096),\`title\` varchar(1000),\`content\` varchar(4096),\`url\` varchar(4096),\`enable\` integer DEFAULT 1,PRIMARY KEY (\`id\`))`,
    `CREATE TABLE \`${p}hosted_message\` (\`id\` integer PRIMARY KEY AUTOINCREMENT,\`title\` text,\`content\` text,\`type\` varchar(100),\`unique_key\` varchar(50) DEFAULT "",\`created_on\` datetime,\`modified_on\` datetime)`,
    `CREATE UNIQUE INDEX \`idx_${p}hosted_message_unique_key\` ON \`${p}hosted_message\`(\`unique_key\`)`,
    `CREATE TABLE \`${p}login_log\` (\`id\` integer PRIMARY KEY AUTOINCREMENT,${AUDIT},\`user_id\` integer,\`username\` varchar(100),\`ip\` varchar(64),\`ua\` varchar(512))`,
    `CREATE TABLE \`${p}template\` (\`id\` varchar(12),${AUDIT},\`name\` varchar(200) NOT NULL,\`description\` text,\`text_template\` text,\`html_template\` text,\`markdown_template\` text,\`placeholders\` text,\`at_mobiles\` text,\`at_user_ids\` text,\`is_at_all\` numeric DEFAULT false,\`status\` varchar(20) DEFAULT "enabled",PRIMARY KEY (\`id\`))`,
    `CREATE TABLE \`${p}send_stats\` (\`id\` integer PRIMARY KEY AUTOINCREMENT,\`task_id\` varchar(12),\`task_type\` varchar(20) DEFAULT "task",\`day\` varchar(10),\`status\` varchar(20),\`num\` integer DEFAULT 0)`,
  ];
}

const T1 = '2026-07-20 09:15:02.123456789 +0800 CST';
const T2 = '2026-07-21 10:00:00 +0800 CST m=+0.012';

const way = (id: string, name: string, type: string, auth: Record<string, unknown>): Row => ({
  id,
  name,
  type,
  auth: JSON.stringify(auth),
  created_by: 'admin',
  modified_by: '',
  created_on: T1,
  modified_on: T1,
});

const ins = (
  id: string,
  owner: { task_id?: string; template_id?: string },
  wayId: string,
  wayType: string,
  contentType: string,
  config: Record<string, unknown> = {},
  enable = 1,
): Row => ({
  id,
  task_id: owner.task_id ?? '',
  template_id: owner.template_id ?? '',
  way_id: wayId,
  way_type: wayType,
  content_type: contentType,
  config: JSON.stringify({ templ_type: contentType, ...config }),
  extra: '',
  enable,
  created_by: 'admin',
  modified_by: '',
  created_on: T2,
  modified_on: T2,
});

/** Secrets of the channel kinds Herald imports: none may appear in clear in Herald's files. */
export const SEALED_SECRETS = [
  'mnsecret-smtp-password',
  'mnsecretdtalktoken',
  'SECmnsecretdtalksign',
  'mnsecretwecomkey',
  'mnsecretfeishuhook',
  'mnsecret-feishu-sign',
  'mnsecret-custom-header',
  'mnsecret-wechat-appsecret',
  '123456:mnsecretTelegram',
  'mnsecretbarkkey',
  'mnsecretntfytopic',
  'tk_mnsecretntfytoken',
  'mnsecret-gotify-token',
  'mnsecret-wecom-app',
  'mnsecret-aliyun',
  'mnsecret-pushme',
];

export function messageNestRows(): Record<string, Row[]> {
  return {
    auth: [{ id: 1, username: 'admin', password: 'mn-admin-plaintext-pw' }],
    send_ways: [
      way('WYemail00001', 'Mail', 'Email', {
        server: '127.0.0.1',
        port: 2525,
        account: 'bot@example.com',
        passwd: 'mnsecret-smtp-password',
        from_name: 'Nest Bot',
      }),
      way('WYdtalk00001', 'DingTalk', 'Dtalk', {
        access_token: 'mnsecretdtalktoken',
        secret: 'SECmnsecretdtalksign',
      }),
      way('WYqywx000001', 'WeCom robot', 'QyWeiXin', { access_token: 'mnsecretwecomkey' }),
      way('WYqyapp00001', 'WeCom app', 'QyWeiXinApp', {
        corp_id: 'ww123',
        agent_id: '1000002',
        secret: 'mnsecret-wecom-app',
        api_host: '',
        proxy_url: '',
      }),
      way('WYfeishu0001', 'Feishu', 'Feishu', {
        access_token: 'mnsecretfeishuhook',
        secret: 'mnsecret-feishu-sign',
      }),
      way('WYcustom0001', 'Custom hook', 'Custom', {
        webhook: 'http://127.0.0.1:9/hook',
        header: 'Authorization: Bearer mnsecret-custom-header\nContent-Type: application/json',
        body: '{"msg":"TEXT"}',
      }),
      way('WYwechat0001', 'WeChat test account', 'WeChatOFAccount', {
        appID: 'wx-app-id',
        appsecret: 'mnsecret-wechat-appsecret',
        tempid: 'tmpl-1',
      }),
      way('WYhosted0001', 'Hosted', 'MessageNest', {}),
      way('WYaliyun0001', 'SMS', 'AliyunSMS', {
        access_key_id: 'LTAI-mn',
        access_key_secret: 'mnsecret-aliyun',
        sign_name: 'Nest',
        region_id: 'cn-hangzhou',
      }),
      way('WYtelegram01', 'Telegram', 'Telegram', {
        bot_token: '123456:mnsecretTelegram',
        chat_id: '-1001234567890',
        api_host: '',
        proxy_url: '',
      }),
      way('WYbark000001', 'Bark', 'Bark', {
        push_key: 'https://bark.example.com/mnsecretbarkkey',
        archive: '',
        group: 'alerts',
        sound: '',
        icon: '',
        level: '',
        url: '',
        key: '',
        iv: '',
      }),
      way('WYbarkenc001', 'Bark encrypted', 'Bark', {
        push_key: 'mnsecretbarkenc',
        key: 'mnsecret16charsk',
        iv: 'mnsecret16chariv',
      }),
      way('WYpushme0001', 'PushMe', 'PushMe', {
        push_key: 'mnsecret-pushme',
        url: '',
        date: '',
        type: '',
      }),
      way('WYntfy000001', 'Ntfy', 'Ntfy', {
        topic: 'mnsecretntfytopic',
        url: 'https://ntfy.sh',
        priority: '4',
        icon: '',
        token: 'tk_mnsecretntfytoken',
        username: '',
        password: '',
        actions: '',
      }),
      way('WYgotify0001', 'Gotify', 'Gotify', {
        url: 'https://gotify.example.com',
        token: 'mnsecret-gotify-token',
        priority: 5,
      }),
    ],
    send_tasks: [
      {
        id: 'TK1234567890',
        name: 'Deploy alerts',
        created_by: 'admin',
        modified_by: '',
        created_on: T1,
        modified_on: T1,
      },
      {
        id: 'TKhosted0001',
        name: 'Hosted only',
        created_by: 'admin',
        modified_by: '',
        created_on: T1,
        modified_on: T1,
      },
      {
        id: 'T-oldstyle1',
        name: 'Old style',
        created_by: '',
        modified_by: '',
        created_on: T1,
        modified_on: T1,
      },
    ],
    send_tasks_ins: [
      ins('INemail00001', { task_id: 'TK1234567890' }, 'WYemail00001', 'Email', 'html', {
        to_account: 'ops@example.com',
      }),
      ins('INdtalk00001', { task_id: 'TK1234567890' }, 'WYdtalk00001', 'Dtalk', 'markdown'),
      ins('INqyapp00001', { task_id: 'TK1234567890' }, 'WYqyapp00001', 'QyWeiXinApp', 'text', {
        to_user: 'zhangsan',
      }),
      ins(
        'INtele000001',
        { task_id: 'TK1234567890' },
        'WYtelegram01',
        'Telegram',
        'markdown',
        {},
        0,
      ),
      ins('INhosted0001', { task_id: 'TKhosted0001' }, 'WYhosted0001', 'MessageNest', 'text', {
        blacklist_regex: '^ignore',
      }),
      ins('INwechat0001', { task_id: 'T-oldstyle1' }, 'WYwechat0001', 'WeChatOFAccount', 'text', {
        allowMultiRecip: true,
      }),
      ins('INorphan0001', { task_id: 'TKdeleted001' }, 'WYhosted0001', 'MessageNest', 'text'),
      ins(
        'INtplhost001',
        { template_id: 'TP0000000001' },
        'WYhosted0001',
        'MessageNest',
        'markdown',
      ),
      ins('INtplfeis001', { template_id: 'TP0000000001' }, 'WYfeishu0001', 'Feishu', 'markdown'),
      ins('INtplsms0001', { template_id: 'TP0000000001' }, 'WYaliyun0001', 'AliyunSMS', 'text', {
        phone_number: '13800000000',
        template_code: 'SMS_1',
      }),
    ],
    template: [
      {
        id: 'TP0000000001',
        name: 'Welcome',
        description: 'greets new users',
        text_template: 'Hi {{username}} from {{服务名}}',
        html_template: '',
        markdown_template: '**Hi** {{username}} from {{服务名}}',
        placeholders: JSON.stringify([
          { key: 'username', label: 'User', default: 'Bob' },
          { key: '服务名', label: '', default: '' },
        ]),
        at_mobiles: '13800000000, 13900000000',
        at_user_ids: '',
        is_at_all: 1,
        status: 'enabled',
        created_by: 'admin',
        modified_by: '',
        created_on: T2,
        modified_on: T2,
      },
      {
        id: 'TP0000000002',
        name: 'Paused template',
        description: '',
        text_template: 'paused',
        html_template: '',
        markdown_template: '',
        placeholders: '',
        at_mobiles: '',
        at_user_ids: '',
        is_at_all: 0,
        status: 'disabled',
        created_by: 'admin',
        modified_by: '',
        created_on: T2,
        modified_on: T2,
      },
    ],
    cron_messages: [
      {
        id: 'CM0000000001',
        name: 'Nightly report',
        task_id: 'TK1234567890',
        cron: '0 2 * * *',
        title: 'Nightly',
        content: 'all good',
        url: '',
        enable: 1,
        created_by: 'admin',
        modified_by: '',
        created_on: T2,
        modified_on: T2,
      },
      {
        id: 'CM0000000002',
        name: 'Orphan schedule',
        task_id: 'TKdeleted001',
        cron: '@hourly',
        title: 'x',
        content: 'y',
        url: 'https://example.com',
        enable: 0,
        created_by: 'admin',
        modified_by: '',
        created_on: T2,
        modified_on: T2,
      },
    ],
    hosted_message: [
      {
        id: 1,
        title: 'First',
        content: 'hello **there**',
        type: 'markdown',
        unique_key: 'AbCdEfGh12345678',
        created_on: T1,
        modified_on: T1,
      },
      {
        id: 2,
        title: 'Second',
        content: '<b>hi</b>',
        type: 'html',
        unique_key: 'ZyXwVu9876543210',
        created_on: T2,
        modified_on: T2,
      },
    ],
    send_tasks_logs: [
      {
        id: 1,
        task_id: 'TK1234567890',
        type: 'task',
        name: 'Deploy alerts',
        log: '发送成功 ok',
        status: 1,
        caller_ip: '10.0.0.5',
        created_on: T1,
        modified_on: T1,
      },
      {
        id: 2,
        task_id: 'TP0000000001',
        type: 'template',
        name: 'Welcome',
        log: '发送失败',
        status: 0,
        caller_ip: '10.0.0.6',
        created_on: T2,
        modified_on: T2,
      },
    ],
    settings: [
      {
        id: 1,
        section: 'site_config',
        key: 'title',
        value: 'Message Nest',
        created_by: '',
        modified_by: '',
        created_on: T1,
        modified_on: T1,
      },
      {
        id: 2,
        section: 'qyweixin_app_token',
        key: 'WYqyapp00001',
        value: '{"token":"mnsecret-cached","expires_at":"2026-07-20T10:00:00Z"}',
        created_by: '',
        modified_by: '',
        created_on: T1,
        modified_on: T1,
      },
    ],
    login_log: [],
    send_stats: [
      {
        id: 1,
        task_id: 'TK1234567890',
        task_type: 'task',
        day: '2026-07-20',
        status: 'success',
        num: 3,
      },
    ],
  };
}

function run(db: sqlite3.Database, sql: string, values: unknown[] = []): Promise<void> {
  return new Promise((done, fail) => db.run(sql, values, (err) => (err ? fail(err) : done())));
}

/** Writes a Message Nest SQLite database; `mutate` may change the DDL before it is run. */
export async function buildSqliteMessageNest(
  file: string,
  opts: { prefix?: string; ddl?: (ddl: string[]) => string[]; rows?: Record<string, Row[]> } = {},
): Promise<void> {
  const prefix = opts.prefix ?? 'message_';
  const db = await new Promise<sqlite3.Database>((done, fail) => {
    const d = new sqlite3.Database(file, (err) => (err ? fail(err) : done(d)));
  });
  try {
    const ddl = opts.ddl ? opts.ddl(sqliteDdl(prefix)) : sqliteDdl(prefix);
    for (const sql of ddl) await run(db, sql);
    for (const [table, rows] of Object.entries(opts.rows ?? messageNestRows())) {
      for (const row of rows) {
        const cols = Object.keys(row);
        await run(
          db,
          `INSERT INTO \`${prefix}${table}\` (${cols.map((c) => `\`${c}\``).join(',')}) VALUES (${cols.map(() => '?').join(',')})`,
          cols.map((c) => row[c]),
        );
      }
    }
  } finally {
    await new Promise<void>((done) => db.close(() => done()));
  }
}

/**
 * Message Nest Aliyun SMS channels in every shape their instances' template codes take (Message
 * Nest keeps the code on each instance only), all used by task TKsms0000001.
 */
export function smsRows(): Record<string, Row[]> {
  const sms = (id: string, name: string) =>
    way(id, name, 'AliyunSMS', {
      access_key_id: 'LTAI-mn',
      access_key_secret: 'mnsecret-aliyun',
      sign_name: 'Nest',
      region_id: 'cn-hangzhou',
    });
  const task = { task_id: 'TKsms0000001' };
  const smsIns = (id: string, wayId: string, config: Record<string, unknown>) =>
    ins(id, task, wayId, 'AliyunSMS', 'text', config);
  return {
    send_ways: [
      sms('WYsmsnone001', 'SMS no instances'),
      sms('WYsmsone0001', 'SMS one code'),
      sms('WYsmsmix0001', 'SMS several codes'),
      sms('WYsmsgap0001', 'SMS one without a code'),
      sms('WYsmsbare001', 'SMS no code at all'),
    ],
    send_tasks: [
      {
        id: 'TKsms0000001',
        name: 'SMS alerts',
        created_by: 'admin',
        modified_by: '',
        created_on: T1,
        modified_on: T1,
      },
    ],
    send_tasks_ins: [
      smsIns('INsmsone0001', 'WYsmsone0001', {
        phone_number: '13800000001',
        template_code: 'SMS_1',
      }),
      smsIns('INsmsone0002', 'WYsmsone0001', {
        phone_number: '13800000002',
        template_code: 'SMS_1',
      }),
      smsIns('INsmsmix0001', 'WYsmsmix0001', {
        phone_number: '13800000003',
        template_code: 'SMS_2',
      }),
      smsIns('INsmsmix0002', 'WYsmsmix0001', {
        phone_number: '13800000004',
        template_code: 'SMS_3',
      }),
      smsIns('INsmsmix0003', 'WYsmsmix0001', {
        phone_number: '13800000005',
        template_code: 'SMS_3',
      }),
      smsIns('INsmsgap0001', 'WYsmsgap0001', {
        phone_number: '13800000006',
        template_code: 'SMS_4',
      }),
      smsIns('INsmsgap0002', 'WYsmsgap0001', { phone_number: '13800000007' }),
      smsIns('INsmsbare001', 'WYsmsbare001', { phone_number: '13800000008' }),
    ],
  };
}
