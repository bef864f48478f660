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
  ledger: MerchantLedger;
  expectedAvailable: string;
  failures: string[];
}

export async function verify(
  db: Client,
  rpc: Rpc,
  baseline: ChainBaseline,
  merchant: Merchant,
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
  const ledger = await merchantLedger(db, merchant.id);

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
  const expectedAvailable = new Decimal(merchant.funded).minus(sumOfAmounts);

  const failures: string[] = [];
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
  if (!new Decimal(ledger.held).isZero()) failures.push(`ledger held ${ledger.held} <> 0`);
  if (!new Decimal(ledger.hotWalletPaidOut).negated().equals(sumOfNets)) {
    failures.push(
      `ledger hot_wallet paid out ${ledger.hotWalletPaidOut} <> -(sum of net_amount ${sumOfNets})`,
    );
  }
  if (!new Decimal(ledger.available).equals(expectedAvailable)) {
    failures.push(
      `ledger available ${ledger.available} <> funded ${merchant.funded} - sum of amount`,
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
    ledger,
    expectedAvailable: expectedAvailable.toFixed(),
    failures,
  };
}
