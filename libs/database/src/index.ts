export * from './advisory-lock';
export * from './callback-query-client';
export * from './data-source-options';
export * from './database.module';
export * from './lost-connections';
export * from './migrate';
export * from './migrations';
export * from './prepared-statements';
