import { Injectable } from '@nestjs/common';

/**
 * Set when the API starts its graceful shutdown (main.ts): readiness turns 503 at once, so a
 * load balancer that still has a connection open stops sending requests here.
 */
@Injectable()
export class DrainState {
  draining = false;
}
