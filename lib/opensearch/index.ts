export * from './dashboards';
export * from './errors';
export * from './http';
export * from './index-template';
export * from './ism-policy';
export * from './provision';
export * from './security';
export * from './spec';
