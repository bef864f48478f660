import Decimal from 'decimal.js';
import { parseUnits } from 'ethers';
import type { Client } from 'pg';
import { Rpc } from '../kit/chain';
import { receipts, tokenBalance, transferLogs } from '../kit/chain-reads';
import type { FundedMerchant } from '../kit/funding';
import { merchantLedger, MerchantLedger, payoutTimes } from './journal';
import type { RequestRecord } from './load';

/*
 * Correctness after the run: the figures mean nothing if a payout was sent twice, sent with the
 * wrong amount, left unfinished, or if the ledger disagrees with the chain or with what was asked.
 */

export interface ChainBaseline {
  token: string;
  hotWallet: string;
  hotWalletBalance: bigint;
}

export interface Verification {
  payouts: number;
  completed: number;
  minedAndSucceeded: number;
  /** Transfers from the hot wallet: exactly one per payout, nothing else. */
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
  merchants: FundedMerchant[],
  records: RequestRecord[],
): Promise<Verification> {
  const ids = records.flatMap((record) => record.payoutIds);
  const payouts = await payoutTimes(db, ids);
  const mined = await receipts(
    rpc,
    payouts.flatMap((payout) => payout.txHash ?? []),
  );
  const head = Number(await rpc.call<string>('eth_blockNumber'));
  // Every Transfer the hot wallet ever sent is a payout: nothing else sends from it.
  const transfers = (await transferLogs(rpc, baseline.token, 0, head)).filter(
    (transfer) => transfer.from === baseline.hotWallet.toLowerCase(),
  );
  const decrease =
    baseline.hotWalletBalance - (await tokenBalance(rpc, baseline.token, baseline.hotWallet));

  const perTx = new Map<string, number>();
  for (const transfer of transfers)
    perTx.set(transfer.txHash, (perTx.get(transfer.txHash) ?? 0) + 1);
  const transferOf = new Map(transfers.map((transfer) => [transfer.txHash, transfer]));
  let matching = 0;
  let netsInBaseUnits = 0n;
  for (const payout of payouts) {
    const net = parseUnits(new Decimal(payout.netAmount).toFixed(), payout.tokenDecimals);
    netsInBaseUnits += net;
    const transfer = payout.txHash ? transferOf.get(payout.txHash) : undefined;
    const one = transfer && perTx.get(transfer.txHash) === 1;
    if (one && transfer.to === payout.toAddress.toLowerCase() && transfer.amount === net)
      matching++;
  }
  const sum = (values: string[]) =>
    values.reduce((total, value) => total.plus(value), new Decimal(0));
  const failures: string[] = [];
  // Each merchant's books on their own: held back to 0, available = funded - its payouts, the hot
  // wallet's lines for its payouts = its nets (a hold on the wrong merchant shows here), and its
  // payouts' amounts = what its created requests asked for.
  const totals = { available: new Decimal(0), held: new Decimal(0), paidOut: new Decimal(0) };
  let expectedAvailable = new Decimal(0);
  for (const merchant of merchants) {
    const own = await merchantLedger(db, merchant.id);
    const its = payouts.filter((payout) => payout.merchantId === merchant.id);
    const amounts = sum(its.map((payout) => payout.amount));
    const nets = sum(its.map((payout) => payout.netAmount));
    const asked = sum(
      records
        .filter((r) => r.merchantId === merchant.id && r.payoutIds.length)
        .map((r) => r.amount),
    );
    const expected = new Decimal(merchant.funded).minus(amounts);
    totals.available = totals.available.plus(own.available);
    totals.held = totals.held.plus(own.held);
    totals.paidOut = totals.paidOut.plus(own.hotWalletPaidOut);
    expectedAvailable = expectedAvailable.plus(expected);
    const fail = (what: string) => failures.push(`${merchant.id}: ${what}`);
    if (!new Decimal(own.held).isZero()) fail(`held ${own.held} <> 0`);
    if (!new Decimal(own.hotWalletPaidOut).negated().equals(nets)) {
      fail(`hot_wallet paid out ${own.hotWalletPaidOut} <> -(sum of net_amount ${nets.toFixed()})`);
    }
    if (!new Decimal(own.available).equals(expected)) {
      fail(`available ${own.available} <> funded ${merchant.funded} - sum of amount`);
    }
    if (!amounts.equals(asked))
      fail(`payouts' amounts ${amounts.toFixed()} <> asked ${asked.toFixed()}`);
  }

  const completed = payouts.filter((payout) => payout.status === 'Completed').length;
  const minedAndSucceeded = payouts.filter(
    (payout) => payout.txHash && mined.get(payout.txHash)?.succeeded,
  ).length;
  const expect = (actual: number, what: string) => {
    if (actual !== ids.length) failures.push(`${actual} of ${ids.length} ${what}`);
  };
  expect(payouts.length, 'payouts found in the database');
  expect(completed, 'payouts Completed');
  expect(minedAndSucceeded, 'payouts whose tx_hash is mined and succeeded');
  expect(
    matching,
    'payouts with exactly one Transfer from the hot wallet, to to_address, of net_amount',
  );
  expect(transfers.length, 'Transfers from the hot wallet (one per payout, none else)');
  if (decrease !== netsInBaseUnits) {
    failures.push(
      `hot wallet token decrease ${decrease} base units <> sum of net_amount ${netsInBaseUnits}`,
    );
  }
  const decimals = payouts[0]?.tokenDecimals ?? 6;
  return {
    payouts: ids.length,
    completed,
    minedAndSucceeded,
    transfers: transfers.length,
    transfersMatching: matching,
    sumOfNets: sum(payouts.map((payout) => payout.netAmount)).toFixed(),
    hotWalletDecrease: new Decimal(decrease.toString())
      .dividedBy(new Decimal(10).pow(decimals))
      .toFixed(),
    ledger: {
      available: totals.available.toFixed(),
      held: totals.held.toFixed(),
      hotWalletPaidOut: totals.paidOut.toFixed(),
    },
    expectedAvailable: expectedAvailable.toFixed(),
    merchants: merchants.length,
    failures,
  };
}
