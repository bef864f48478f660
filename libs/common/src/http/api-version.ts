export const API_VERSION_HEADER = 'API-Version';

/**
 * The revision of the /v1 contract this build serves (docs/versioning.md). It names the day of the
 * last change that a /v1 client could notice other than by new fields, routes, values or events:
 * additive changes never move it. A client that logs it can tell which contract it talked to.
 */
export const API_VERSION = '2026-11-22';
