/**
 * What a recipient looks like per channel kind: the instance form's placeholder and the
 * sample `recipients` of the interface dialog's examples.
 */
const EXAMPLES: Readonly<Record<string, string>> = {
  email: 'ops@example.com',
  wechat_official: 'oAbCdEfGhIjKlMnOpQrStUvWxYz0',
  wecom_app: 'zhangsan|lisi;party:2;tag:5',
  aliyun_sms: '13800000000',
};

/** An example recipient of a kind (an email address for a kind without its own). */
export function recipientExample(type: string | undefined): string {
  return (type && EXAMPLES[type]) || EXAMPLES.email;
}
