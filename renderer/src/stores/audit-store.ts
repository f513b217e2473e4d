import { defineStore } from 'pinia';

import type { AuditQuery } from '@contract';

import { auditApi } from '../api/audit-api';

/** The audit log's pages. */
export const useAuditStore = defineStore('audit', () => {
  const list = (query: AuditQuery = {}) => auditApi.list(query);
  return { list };
});
