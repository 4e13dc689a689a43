export { RegionalStore } from './regional-store';
export type { RegionalStats } from './regional-store';
export type { RegionalLeaseOptions, RegionalStoreOptions } from './options';
