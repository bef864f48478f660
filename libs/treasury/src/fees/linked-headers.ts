import { toQuantity } from 'ethers';
import { EvmRpc } from '@app/chains/adapters/evm/evm-rpc';

interface LinkHeader {
  hash: string;
  parentHash: string;
}

/** Headers read at once while proving a depth: a few round trips, not one per block. */
const READ_AT_ONCE = 16;

/** Whether a block is buried under finalityBlocks (`buried`), not yet (`not-yet`), or `off-chain`. */
export type Burial = 'buried' | 'not-yet' | 'off-chain';

/**
 * One batch's block headers, by number, each read at most once (fees booked together share
 * blocks). A depth is proven only by hash links: the block's own header and the headers above it,
 * each naming the one below as its parent. Hash links hold whichever backends of a balancer
 * served each header (review r11, 1), where a head and a header from two requests proved nothing:
 * a backend stuck on a lost fork serves its block, a healthy one a deep head.
 */
export class LinkedHeaders {
  private readonly headers = new Map<number, Promise<LinkHeader | null>>();

  constructor(private readonly rpc: EvmRpc) {}

  /**
   * `blockHash` at `blockNumber` with `finalityBlocks - 1` linked blocks above it: `buried`. A
   * header missing (a backend behind; an absence proves nothing): `not-yet`, asked again next
   * pass. Another hash at that height, or a link broken (a reorg between reads, or backends on
   * two branches): `off-chain`, and the headers around the break are read again by later proofs.
   */
  async burial(blockNumber: number, blockHash: string, finalityBlocks: number): Promise<Burial> {
    const top = blockNumber + finalityBlocks - 1;
    let below: LinkHeader | null = null;
    for (let from = blockNumber; from <= top; from += READ_AT_ONCE) {
      const numbers = Array.from(
        { length: Math.min(READ_AT_ONCE, top - from + 1) },
        (_, i) => from + i,
      );
      const read = await Promise.all(numbers.map((number) => this.header(number)));
      for (const [i, header] of read.entries()) {
        const number = numbers[i];
        if (!header) {
          this.headers.delete(number);
          return 'not-yet';
        }
        const linked =
          below === null ? header.hash === blockHash : header.parentHash === below.hash;
        if (!linked) {
          this.headers.delete(number);
          if (below !== null) this.headers.delete(number - 1);
          return 'off-chain';
        }
        below = header;
      }
    }
    return 'buried';
  }

  private header(number: number): Promise<LinkHeader | null> {
    let header = this.headers.get(number);
    if (!header) {
      header = this.rpc.call('eth_getBlockByNumber', async (provider) => {
        const raw = (await provider.send('eth_getBlockByNumber', [toQuantity(number), false])) as {
          number: string;
          hash: string;
          parentHash: string;
        } | null;
        // A header of another height is no answer for this one.
        if (!raw || Number(BigInt(raw.number)) !== number) return null;
        return { hash: raw.hash.toLowerCase(), parentHash: raw.parentHash.toLowerCase() };
      });
      // A failed read is not kept: the next proof asks again.
      header.catch(() => {
        if (this.headers.get(number) === header) this.headers.delete(number);
      });
      this.headers.set(number, header);
    }
    return header;
  }
}
