import Decimal from 'decimal.js';
import { parseUnits } from 'ethers';
import type { Client } from 'pg';
import type { Rpc } from '../deposits/chain';
import { receipts, tokenBalance, transfersFrom } from './chain';
import { merchantLedger, MerchantLedger, payoutTimes } from './journal';
import type { Merchant } from './funding';

/*
 * Correctness after the run: the figures mean nothing if a payout was sent twice, sent with the
 * wrong amount, left unfinished, or if the ledger disagrees with the chain.
 */

export interface ChainBaseline {
  token: string;
  hotWallet: string;
  /** The head before the first payout: every Transfer from the hot wallet after it is ours. */
  fromBlock: number;
  hotWalletBalance: bigint;
}

export interface Verification {
  payouts: number;
  completed: number;
  minedAndSucceeded: number;
  /** Transfers from the hot wallet since the baseline: exactly one per payout, nothing else. */
  transfers: number;
  transfersMatching: number;
  sumOfNets: string;
  hotWalletDecrease: string;
  /** Over all the merchants: their ledgers summed. */
  ledger: MerchantLedger;
  expectedAvailable: string;
  merchants: number;
  failures: string[];
}

export async function verify(
  db: Client,
  rpc: Rpc,
  baseline: ChainBaseline,
  merchants: Merchant[],
  ids: string[],
): Promise<Verification> {
  const payouts = await payoutTimes(db, ids);
  const mined = await receipts(
    rpc,
    payouts.flatMap((payout) => (payout.txHash ? [payout.txHash] : [])),
  );
  const transfers = await transfersFrom(
    rpc,
    baseline.token,
    baseline.hotWallet,
    baseline.fromBlock,
  );
  const balance = await tokenBalance(rpc, baseline.token, baseline.hotWallet);

  const byTxHash = new Map<string, number>();
  for (const transfer of transfers) {
    byTxHash.set(transfer.txHash, (byTxHash.get(transfer.txHash) ?? 0) + 1);
  }
  const transferOf = new Map(transfers.map((transfer) => [transfer.txHash, transfer]));
  let matching = 0;
  let sumOfNets = new Decimal(0);
  let sumOfAmounts = new Decimal(0);
  let sumOfNetsBaseUnits = 0n;
  for (const payout of payouts) {
    sumOfNets = sumOfNets.plus(payout.netAmount);
    sumOfAmounts = sumOfAmounts.plus(payout.amount);
    const net = parseUnits(new Decimal(payout.netAmount).toFixed(), payout.tokenDecimals);
    sumOfNetsBaseUnits += net;
    const transfer = payout.txHash ? transferOf.get(payout.txHash) : undefined;
    if (
      transfer &&
      byTxHash.get(transfer.txHash) === 1 &&
      transfer.to === payout.toAddress &&
      transfer.amount === net
    ) {
      matching++;
    }
  }
  const completed = payouts.filter((payout) => payout.status === 'Completed').length;
  const minedAndSucceeded = payouts.filter(
    (payout) => payout.txHash && mined.get(payout.txHash)?.succeeded,
  ).length;
  const decrease = baseline.hotWalletBalance - balance;
  const failures: string[] = [];
  // Each merchant's books on their own: held back to 0, available = funded - its payouts, and
  // the hot wallet's lines for its payouts = its nets (a hold on the wrong merchant shows here).
  const ledger = { available: new Decimal(0), held: new Decimal(0), paidOut: new Decimal(0) };
  let expectedAvailable = new Decimal(0);
  for (const merchant of merchants) {
    const own = await merchantLedger(db, merchant.id);
    const its = payouts.filter((payout) => payout.merchantId === merchant.id);
    const amounts = its.reduce((sum, payout) => sum.plus(payout.amount), new Decimal(0));
    const nets = its.reduce((sum, payout) => sum.plus(payout.netAmount), new Decimal(0));
    const expected = new Decimal(merchant.funded).minus(amounts);
    ledger.available = ledger.available.plus(own.available);
    ledger.held = ledger.held.plus(own.held);
    ledger.paidOut = ledger.paidOut.plus(own.hotWalletPaidOut);
    expectedAvailable = expectedAvailable.plus(expected);
    if (!new Decimal(own.held).isZero()) failures.push(`${merchant.id}: held ${own.held} <> 0`);
    if (!new Decimal(own.hotWalletPaidOut).negated().equals(nets)) {
      failures.push(
        `${merchant.id}: hot_wallet paid out ${own.hotWalletPaidOut} <> -(sum of net_amount ${nets.toFixed()})`,
      );
    }
    if (!new Decimal(own.available).equals(expected)) {
      failures.push(
        `${merchant.id}: available ${own.available} <> funded ${merchant.funded} - sum of amount`,
      );
    }
  }

  const expect = (actual: number, what: string) => {
    if (actual !== ids.length) failures.push(`${actual} of ${ids.length} ${what}`);
  };
  expect(completed, 'payouts Completed');
  expect(minedAndSucceeded, 'payouts whose tx_hash is mined and succeeded');
  expect(
    matching,
    'payouts with exactly one Transfer from the hot wallet, to to_address, of net_amount',
  );
  if (transfers.length !== ids.length) {
    failures.push(
      `${transfers.length} Transfers from the hot wallet for ${ids.length} payouts (one each expected)`,
    );
  }
  if (decrease !== sumOfNetsBaseUnits) {
    failures.push(
      `hot wallet token decrease ${decrease} base units <> sum of net_amount ${sumOfNetsBaseUnits}`,
    );
  }
  return {
    payouts: ids.length,
    completed,
    minedAndSucceeded,
    transfers: transfers.length,
    transfersMatching: matching,
    sumOfNets: sumOfNets.toFixed(),
    hotWalletDecrease: new Decimal(decrease.toString())
      .dividedBy(new Decimal(10).pow(payouts[0]?.tokenDecimals ?? 6))
      .toFixed(),
    ledger: {
      available: ledger.available.toFixed(),
      held: ledger.held.toFixed(),
      hotWalletPaidOut: ledger.paidOut.toFixed(),
    },
    expectedAvailable: expectedAvailable.toFixed(),
    merchants: merchants.length,
    failures,
  };
}
