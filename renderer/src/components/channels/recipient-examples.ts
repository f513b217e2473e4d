/**
 * What a recipient looks like per channel kind: the instance form's placeholder and the
 * sample `recipients` of the interface dialog's examples.
 */
const EXAMPLES: Readonly<Record<string, string>> = {
  email: 'ops@example.com',
  wechat_official: 'oAbCdEfGhIjKlMnOpQrStUvWxYz0',
  wecom_app: 'zhangsan|lisi;party:2;tag:5',
  aliyun_sms: '13800000000',
  pushplus: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
  wxpusher: 'UID_xxxxxxxx',
  'dingtalk-work': 'manager4220',
};

/** An example recipient of a kind (an email address for a kind without its own). */
export function recipientExample(type: string | undefined): string {
  return (type && EXAMPLES[type]) || EXAMPLES.email;
}
