/** The contract's V2 msg strings, verbatim. */
export const V2_MSG = {
  tokenParseFailed: 'token解析失败',
  templateNotFound: '模板不存在',
  templateDisabled: '模板已禁用',
  noInstances: '模板没有配置发送实例',
  noEnabledInstances: '模板没有启用的发送实例',
} as const;
