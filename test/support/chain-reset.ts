import { INestApplicationContext } from '@nestjs/common';
import { ChainResetService } from '@app/deposits';
import { NetworkName } from '@app/chains';

/**
 * A suite starts its own devnet, a new chain that shares nothing with the one the previous suite
 * watched under the same network name: forget that one, as an operator does after a testnet reset
 * (`npm run cli -- chains:forget --network NAME`).
 */
export async function forgetChain(app: INestApplicationContext, network: string): Promise<void> {
  await app.get(ChainResetService).forget(network as NetworkName);
}
