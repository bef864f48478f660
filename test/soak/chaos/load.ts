import Decimal from 'decimal.js';
import { Wallet } from 'ethers';
import type { Devnet } from '../../support/devnet';
import type { SeededRandom } from '../../support/seeded-random';
import type { ApiClient } from './api-client';

const CURRENCIES = ['USDT', 'USDC'] as const;
type Currency = (typeof CURRENCIES)[number];
export type SessionKind = 'exact' | 'under' | 'over' | 'late';

export interface LoadSession {
  id: string;
  address: string;
  currency: Currency;
  price: string;
  kind: SessionKind;
  /** Our transfers to its pay address (lower-case hashes). */
  sent: Array<{ hash: string; amount: string }>;
  refundId?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The steady mixed load, one step a second: a session created and paid (exactly, under then
 * topped up, over then the excess refunded, or after it expired), and every third step a payout
 * from the merchant's balance. Steps overlap; a step's failure is counted, never fatal: the
 * checks afterwards judge what the service did with what was asked.
 */
export class Load {
  readonly sessions: LoadSession[] = [];
  readonly payouts: string[] = [];
  readonly failures: string[] = [];
  private running = true;
  private readonly inFlight = new Set<Promise<void>>();
  private step = 0;

  constructor(
    private readonly client: ApiClient,
    private readonly devnet: Devnet,
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

  private track(step: Promise<void>): void {
    const tracked = step.catch((error: Error) => {
      this.failures.push(`${new Date().toISOString()} ${error.message}`);
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private async session(): Promise<void> {
    const roll = this.random.next();
    const kind: SessionKind =
      roll < 0.5 ? 'exact' : roll < 0.65 ? 'under' : roll < 0.85 ? 'over' : 'late';
    const currency = this.random.pick(CURRENCIES);
    const price = `${this.random.int(5, 40)}.${String(this.random.int(0, 99)).padStart(2, '0')}`;
    const extra = this.random.int(3, 9);
    const topUpAfter = this.random.int(5, 20) * 1000;
    const created = await this.client.call('POST', '/v1/checkout/sessions', {
      pricing_amount: price,
      pricing_currency: 'USD',
      currency,
      network: 'ETHEREUM',
    });
    if (created.status !== 201)
      throw new Error(`session: ${created.status} ${JSON.stringify(created.body)}`);
    const session: LoadSession = {
      id: created.body.id,
      address: created.body.pay_address,
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
    const { txHash } = await this.devnet.transfer(session.currency, session.address, amount);
    session.sent.push({ hash: txHash.toLowerCase(), amount });
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
      to_address: Wallet.createRandom().address,
      reason: 'Overpaid',
    });
    if (refund.status !== 201)
      throw new Error(`refund: ${refund.status} ${JSON.stringify(refund.body)}`);
    session.refundId = refund.body.id;
  }

  private async payout(): Promise<void> {
    const currency = this.random.pick(CURRENCIES);
    const amount = new Decimal(this.random.int(2, 10));
    const balances = await this.client.call('GET', '/v1/balances');
    if (balances.status !== 200) throw new Error(`balances: ${balances.status}`);
    const row = (balances.body as Array<{ currency: string; available: string }>).find(
      (balance) => balance.currency === currency,
    );
    if (new Decimal(row?.available ?? 0).lessThan(amount.plus(5))) return;
    const created = await this.client.call('POST', '/v1/payouts', {
      amount: amount.toFixed(),
      currency,
      network: 'ETHEREUM',
      to_address: Wallet.createRandom().address,
    });
    // Another payout may have taken the balance since it was read: refused, not a failure.
    if (created.status === 422 || created.status === 402) return;
    if (created.status !== 201)
      throw new Error(`payout: ${created.status} ${JSON.stringify(created.body)}`);
    this.payouts.push(created.body.id);
  }
}
