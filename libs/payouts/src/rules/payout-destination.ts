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
export interface DestinationInspection {
  /** Canonical form, null when the address is not one of the network's. */
  address: string | null;
  checksumOk: boolean;
  isContract: boolean;
  /** The 400 `invalid_address` a creation answers, or null when the address may be paid. */
  refusal: ApiException | null;
}

@Injectable()
export class PayoutDestination {
  constructor(private readonly payouts: PayoutsRepository) {}

  /** The address in canonical form (checksummed on EVM), or a 400 `invalid_address`. */
  async check(network: NetworkConfig, toAddress: string): Promise<string> {
    const inspection = await this.inspect(network, toAddress);
    if (inspection.refusal) throw inspection.refusal;
    return inspection.address as string;
  }

  /**
   * What check() decides, without throwing: a quote shows it, a creation refuses on it. Whether
   * the address is a contract is known only for the network's token contracts (no chain call).
   */
  async inspect(network: NetworkConfig, toAddress: string): Promise<DestinationInspection> {
    const offline = inspectOffline(network, toAddress);
    if (offline.refusal || !offline.address) return offline;
    return (await this.payouts.isServiceAddress(offline.address))
      ? serviceAddressInspection(offline)
      : offline;
  }

  /**
   * inspect() for many destinations (a batch's), in their order, with one query for all the
   * service's addresses among them: a batch of 1,000 takes one pool connection, not 16 at once.
   */
  async inspectMany(
    destinations: Array<{ network: NetworkConfig; toAddress: string }>,
  ): Promise<DestinationInspection[]> {
    const offline = destinations.map(({ network, toAddress }) =>
      inspectOffline(network, toAddress),
    );
    const candidates = offline.flatMap((inspection) =>
      !inspection.refusal && inspection.address ? [inspection.address] : [],
    );
    const ours = await this.payouts.serviceAddressesAmong(candidates);
    return offline.map((inspection) =>
      !inspection.refusal && inspection.address && ours.has(inspection.address)
        ? serviceAddressInspection(inspection)
        : inspection,
    );
  }
}

/**
 * What inspect() decides without the database: format and checksum, zero address, token
 * contract. An address it does not refuse may still be one of the service's own.
 */
function inspectOffline(network: NetworkConfig, toAddress: string): DestinationInspection {
  // The format and, where the address has one, its checksum (base58check, EIP-55 mixed case).
  const checksumOk = isValidAddress(network.chainFamily, toAddress);
  if (!checksumOk) {
    const refusal = refused(
      network.chainFamily === 'TRON'
        ? `to_address is not a TRON address (base58check, starting with T).`
        : `to_address is not an EVM address (0x + 40 hex; a mixed-case address needs a valid EIP-55 checksum).`,
    );
    return { address: null, checksumOk, isContract: false, refusal };
  }
  const address = normalizeAddress(network.chainFamily, toAddress);
  const inspection = (refusal: ApiException | null, isContract = false) => ({
    address,
    checksumOk,
    isContract,
    refusal,
  });
  if (address === EVM_ZERO_ADDRESS || address === TRON_ZERO_ADDRESS) {
    return inspection(refused('to_address is the zero address: tokens sent there are lost.'));
  }
  const tokens = Object.entries(network.tokens);
  if (tokens.some(([, token]) => token?.contract === address)) {
    return inspection(
      refused('to_address is a token contract: tokens sent there are stuck for good.'),
      true,
    );
  }
  return inspection(null);
}

function serviceAddressInspection(inspection: DestinationInspection): DestinationInspection {
  return {
    ...inspection,
    refusal: refused(
      "to_address belongs to this service (a hot wallet or a customer's pay address).",
    ),
  };
}

function refused(message: string): ApiException {
  return new ApiException(ErrorCode.InvalidAddress, message, 'to_address');
}
