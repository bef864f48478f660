import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_ROUTE = 'auth:isPublic';

/** Marks a route that needs no API key (health checks, the hosted checkout page). */
export const Public = () => SetMetadata(IS_PUBLIC_ROUTE, true);
