import { Injectable } from '@nestjs/common';
import { TronWeb } from 'tronweb';
import { ApiException, ErrorCode } from '@app/common';
import { isValidAddress, NetworkConfig, normalizeAddress } from '@app/chains';
import { PayoutsRepository } from '../payouts.repository';

const EVM_ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const TRON_ZERO_ADDRESS = TronWeb.address.fromHex('41' + '00'.repeat(20));

/**
 * Checks a payout's `to_address` by the network's own rules and refuses destinations a careful
 * operator never pays: the zero address (tokens burnt), a token contract (tokens stuck), and the
 * service's own hot wallet or pay addresses (money sent in a circle, or credited as a deposit).
 */
@Injectable()
export class PayoutDestination {
  constructor(private readonly payouts: PayoutsRepository) {}

  /** The address in canonical form (checksummed on EVM), or a 400 `invalid_address`. */
  async check(network: NetworkConfig, toAddress: string): Promise<string> {
    if (!isValidAddress(network.chainFamily, toAddress)) {
      throw refused(
        network.chainFamily === 'TRON'
          ? `to_address is not a TRON address (base58check, starting with T).`
          : `to_address is not an EVM address (0x + 40 hex; a mixed-case address needs a valid EIP-55 checksum).`,
      );
    }
    const address = normalizeAddress(network.chainFamily, toAddress);
    if (address === EVM_ZERO_ADDRESS || address === TRON_ZERO_ADDRESS) {
      throw refused('to_address is the zero address: tokens sent there are lost.');
    }
    const tokens = Object.entries(network.tokens);
    if (tokens.some(([, token]) => token?.contract === address)) {
      throw refused('to_address is a token contract: tokens sent there are stuck for good.');
    }
    if (await this.payouts.isServiceAddress(address)) {
      throw refused(
        "to_address belongs to this service (a hot wallet or a customer's pay address).",
      );
    }
    return address;
  }
}

function refused(message: string): ApiException {
  return new ApiException(ErrorCode.InvalidAddress, message, 'to_address');
}
