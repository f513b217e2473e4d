import type { MaintenanceInfo, PruneResult } from '../data-types';
import { http } from './http-client';

/** The database panel of the Settings page. */
export const maintenanceApi = {
  info: () => http.get<MaintenanceInfo>('/maintenance'),
  prune: () => http.post<PruneResult>('/maintenance/prune'),
};
