import Decimal from 'decimal.js';
import { Wallet } from 'ethers';
import { TESTNET_NETWORKS } from '@app/chains';
import type { Devnet } from '../../support/devnet';
import type { FakeTronNode } from '../../support/fake-tron-node';
import type { SeededRandom } from '../../support/seeded-random';
import { tronAddressOf, tronTestKey } from '../../support/tron-sweep-env';
import type { ApiClient } from './api-client';

const EVM_CURRENCIES = ['USDT', 'USDC'] as const;
type Currency = 'USDT' | 'USDC';
export type Network = 'ETHEREUM' | 'TRON';
export type SessionKind = 'exact' | 'under' | 'over' | 'late';

export const TRON_USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
// The customers' TRON wallet: the fake node's addTransferBlock neither checks nor moves its balance.
const TRON_PAYER = tronAddressOf(tronTestKey('chaos soak tron payer'));

/**
 * One of our transfers to a pay address. `reorg`: a nemesis reorg dropped the block it was in;
 * 're-mined' when the transfer came back on the new chain, 'out' when another transaction took
 * its nonce (it is on no chain any more and must be booked nowhere).
 */
export interface SentTransfer {
  hash: string;
  amount: string;
  reorg?: 're-mined' | 'out';
}

export interface LoadSession {
  id: string;
  address: string;
  network: Network;
  currency: Currency;
  price: string;
  kind: SessionKind;
  /** Our transfers to its pay address (lower-case hashes; TRON txids without 0x). */
  sent: SentTransfer[];
  refundId?: string;
}

export interface LoadPayout {
  id: string;
  network: Network;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The steady mixed load, one step a second: a session created and paid (exactly, under then
 * topped up, over then the excess refunded, or after it expired), a quarter of them on TRON
 * (paid in a block of the fake node), and every third step a payout from the merchant's balance
 * on either network. Steps overlap; a step's failure is counted, never fatal: the checks
 * afterwards judge what the service did with what was asked.
 */
export class Load {
  readonly sessions: LoadSession[] = [];
  readonly payouts: LoadPayout[] = [];
  readonly failures: string[] = [];
  private running = true;
  private readonly inFlight = new Set<Promise<void>>();
  private step = 0;
  /** Set while the nemesis rewrites anvil's recent blocks: ETHEREUM payments wait for it. */
  private chainGate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  private readonly evmPayments = new Set<Promise<unknown>>();

  constructor(
    private readonly client: ApiClient,
    private readonly devnet: Devnet,
    private readonly tron: FakeTronNode,
    private readonly random: SeededRandom,
  ) {}

  async run(): Promise<void> {
    while (this.running) {
      const started = Date.now();
      // A machine too slow for a step a second gets fewer, not a pile-up.
      if (this.inFlight.size < 25) {
        this.track(this.session());
        if (this.step % 3 === 2) this.track(this.payout());
      }
      this.step++;
      await sleep(Math.max(0, 1000 - (Date.now() - started)));
    }
  }

  /** No new steps; waits for those under way (a top-up or a refund may wait on the chain). */
  async stop(): Promise<void> {
    this.running = false;
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * ETHEREUM payments stop (new ones wait) and those sent are mined: the payer has nothing in
   * anvil's pool while the nemesis replays a reorg. `resumeChain` lets them go on.
   */
  async holdChain(): Promise<void> {
    this.chainGate = new Promise<void>((resolve) => (this.openGate = resolve));
    while (this.evmPayments.size) await Promise.allSettled([...this.evmPayments]);
  }

  resumeChain(): void {
    this.chainGate = undefined;
    this.openGate?.();
  }

  /** Our ETHEREUM transfer with this hash, if any (the nemesis marks what its reorg did). */
  transfer(hash: string): { session: LoadSession; transfer: SentTransfer } | undefined {
    for (const session of this.sessions) {
      const transfer = session.sent.find((sent) => sent.hash === hash.toLowerCase());
      if (transfer) return { session, transfer };
    }
    return undefined;
  }

  private track(step: Promise<void>): void {
    const tracked = step.catch((error: Error) => {
      this.failures.push(`${new Date().toISOString()} ${error.message}`);
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private async session(): Promise<void> {
    const network: Network = this.random.chance(0.25) ? 'TRON' : 'ETHEREUM';
    const roll = this.random.next();
    const kind: SessionKind =
      roll < 0.5 ? 'exact' : roll < 0.65 ? 'under' : roll < 0.85 ? 'over' : 'late';
    const currency: Currency = network === 'TRON' ? 'USDT' : this.random.pick(EVM_CURRENCIES);
    const price = `${this.random.int(5, 40)}.${String(this.random.int(0, 99)).padStart(2, '0')}`;
    // A refund must be above twice the network fee (TRON=1, ETHEREUM=0.5): 3 or more.
    const extra = this.random.int(3, 9);
    const topUpAfter = this.random.int(5, 20) * 1000;
    const created = await this.client.call('POST', '/v1/checkout/sessions', {
      pricing_amount: price,
      pricing_currency: 'USD',
      currency,
      network,
    });
    if (created.status !== 201)
      throw new Error(`session: ${created.status} ${JSON.stringify(created.body)}`);
    const session: LoadSession = {
      id: created.body.id,
      address: created.body.pay_address,
      network,
      currency,
      price,
      kind,
      sent: [],
    };
    this.sessions.push(session);
    const total = new Decimal(price);
    if (kind === 'late') {
      const expired = await this.client.call(
        'POST',
        `/v1/test-helpers/checkout/sessions/${session.id}/expire`,
      );
      if (expired.status !== 200) throw new Error(`expire: ${expired.status}`);
      return this.pay(session, total.toFixed());
    }
    if (kind === 'over') {
      await this.pay(session, total.plus(extra).toFixed());
      return this.refundExcess(session);
    }
    if (kind === 'under') {
      const first = total.mul('0.6').toDecimalPlaces(2);
      await this.pay(session, first.toFixed());
      await sleep(topUpAfter);
      return this.pay(session, total.minus(first).toFixed());
    }
    return this.pay(session, total.toFixed());
  }

  private async pay(session: LoadSession, amount: string): Promise<void> {
    if (session.network === 'TRON') return this.payOnTron(session, amount);
    while (this.chainGate) await this.chainGate;
    const sending = this.devnet.transfer(session.currency, session.address, amount);
    this.evmPayments.add(sending);
    try {
      const { txHash } = await sending;
      session.sent.push({ hash: txHash.toLowerCase(), amount });
    } finally {
      this.evmPayments.delete(sending);
    }
  }

  /**
   * A block of the fake node with the customer's transfer; addTransferBlock leaves balances
   * alone, so the token's storage is set as the transfer leaves it (what the sweeps then move).
   */
  private async payOnTron(session: LoadSession, amount: string): Promise<void> {
    const units = BigInt(new Decimal(amount).mul(1e6).toFixed(0));
    const { txIds } = this.tron.addTransferBlock([
      { contract: TRON_USDT, from: TRON_PAYER, to: session.address, amount: units },
    ]);
    this.tron.setTokenBalance(
      TRON_USDT,
      session.address,
      this.tron.tokenBalance(TRON_USDT, session.address) + units,
    );
    session.sent.push({ hash: txIds[0].toLowerCase(), amount });
  }

  /** Once the overpaid session is Paid, the merchant refunds the excess to the customer. */
  private async refundExcess(session: LoadSession): Promise<void> {
    const deadline = Date.now() + 180_000;
    for (;;) {
      const read = await this.client.call('GET', `/v1/checkout/sessions/${session.id}`);
      if (read.body?.status === 'Paid') break;
      if (Date.now() > deadline) throw new Error(`session ${session.id} not Paid for its refund`);
      await sleep(2000);
    }
    const refund = await this.client.call('POST', `/v1/checkout/sessions/${session.id}/refunds`, {
      to_address: this.recipient(session.network),
      reason: 'Overpaid',
    });
    if (refund.status !== 201)
      throw new Error(`refund: ${refund.status} ${JSON.stringify(refund.body)}`);
    session.refundId = refund.body.id;
  }

  private recipient(network: Network): string {
    return network === 'TRON'
      ? tronAddressOf(tronTestKey(`chaos soak recipient ${this.random.next()}`))
      : Wallet.createRandom().address;
  }

  private async payout(): Promise<void> {
    const network: Network = this.random.chance(0.3) ? 'TRON' : 'ETHEREUM';
    const currency: Currency = network === 'TRON' ? 'USDT' : this.random.pick(EVM_CURRENCIES);
    const amount = new Decimal(this.random.int(2, 10));
    const balances = await this.client.call('GET', '/v1/balances');
    if (balances.status !== 200) throw new Error(`balances: ${balances.status}`);
    const row = (
      balances.body as Array<{ network: string; currency: string; available: string }>
    ).find((balance) => balance.currency === currency && balance.network === network);
    if (new Decimal(row?.available ?? 0).lessThan(amount.plus(5))) return;
    const created = await this.client.call('POST', '/v1/payouts', {
      amount: amount.toFixed(),
      currency,
      network,
      to_address: this.recipient(network),
    });
    // Another payout may have taken the balance since it was read: refused, not a failure.
    if (created.status === 422 || created.status === 402) return;
    if (created.status !== 201)
      throw new Error(`payout: ${created.status} ${JSON.stringify(created.body)}`);
    this.payouts.push({ id: created.body.id, network });
  }
}
