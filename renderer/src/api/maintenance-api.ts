import { http } from './http-client';
import type { MaintenanceInfo, PruneResult } from './types';

/** The database panel of the Settings page. */
export const maintenanceApi = {
  info: () => http.get<MaintenanceInfo>('/maintenance'),
  prune: () => http.post<PruneResult>('/maintenance/prune'),
};
