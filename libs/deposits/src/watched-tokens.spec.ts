import { Logger } from '@nestjs/common';
import { ChainAdapter, ChainError, NetworkConfig, TESTNET_NETWORKS } from '@app/chains';
import { WatchedTokens } from './watched-tokens';

const BSC: NetworkConfig = TESTNET_NETWORKS.BSC;
const USDT = BSC.tokens.USDT!;
const USDC = BSC.tokens.USDC!;

/** An adapter that answers decimals() from a table, or with the error given for a contract. */
function fakeAdapter(answers: Record<string, number | ChainError>) {
  const asked: string[] = [];
  const adapter = {
    network: BSC,
    getTokenDecimals: jest.fn(async (contract: string) => {
      asked.push(contract);
      const answer = answers[contract];
      if (answer instanceof ChainError) throw answer;
      return answer;
    }),
  };
  return { adapter: adapter as unknown as ChainAdapter, asked, answers };
}

describe('WatchedTokens', () => {
  let errors: jest.SpyInstance;
  let warnings: jest.SpyInstance;
  let tokens: WatchedTokens;

  beforeEach(() => {
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    tokens = new WatchedTokens();
  });

  afterEach(() => jest.restoreAllMocks());

  it('watches tokens whose contract confirms the configured decimals, asking once', async () => {
    const { adapter, asked } = fakeAdapter({ [USDT.contract]: 18, [USDC.contract]: 18 });
    for (let tick = 0; tick < 3; tick++) {
      const watched = await tokens.of(BSC, adapter);
      expect([...watched.keys()].sort()).toEqual([USDT.contract, USDC.contract].sort());
      expect(watched.get(USDT.contract)).toEqual({ ...USDT, currency: 'USDT' });
    }
    expect(asked.sort()).toEqual([USDT.contract, USDC.contract].sort());
    expect(tokens.refusedTokens()).toEqual([]);
  });

  it('holds the network while a token has wrong decimals, reports it and logs it once', async () => {
    const network = { ...BSC, tokens: { USDT: { ...USDT, decimals: 6 }, USDC } };
    const { adapter, asked } = fakeAdapter({ [USDT.contract]: 18, [USDC.contract]: 18 });
    for (let tick = 0; tick < 3; tick++) {
      // Not even USDC: a tick without USDT would move the cursor past its payments for good.
      const failure = await tokens.of(network, adapter).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ChainError);
      expect(failure).toMatchObject({ kind: 'permanent', network: 'BSC' });
      expect((failure as Error).message).toBe(
        'USDT is configured with 6 decimals, its contract has 18: detection is held until ' +
          'NETWORKS_FILE is fixed and the worker restarted',
      );
    }
    expect(asked.filter((contract) => contract === USDT.contract)).toHaveLength(1);
    expect(tokens.refusedTokens()).toEqual([
      { network: 'BSC', currency: 'USDT', contract: USDT.contract, configured: 6, actual: 18 },
    ]);
    expect(errors).toHaveBeenCalledTimes(1);
    const [details, message] = errors.mock.calls[0] as [object, string];
    expect(details).toEqual(tokens.refusedTokens()[0]);
    expect(message).toMatch(
      /^BSC USDT: configured with 6 decimals, but the contract 0x\S+ has 18\. Deposit detection on BSC is HELD/,
    );
  });

  it('fails the tick on a transient error, keeps nothing and asks again next tick', async () => {
    const unreachable = new ChainError('transient', 'eth_call decimals(): node unreachable', 'BSC');
    const { adapter, asked, answers } = fakeAdapter({
      [USDT.contract]: unreachable,
      [USDC.contract]: 18,
    });
    const failure = await tokens.of(BSC, adapter).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ChainError);
    expect(failure).toMatchObject({ kind: 'transient', network: 'BSC' });
    expect((failure as Error).message).toMatch(/decimals\(\) of USDT could not be checked/);
    expect(tokens.unverifiedTokens()).toEqual([
      expect.objectContaining({ currency: 'USDT', transient: true }),
    ]);
    await tokens.of(BSC, adapter).catch(() => undefined);
    expect(warnings).toHaveBeenCalledTimes(1);

    answers[USDT.contract] = 18;
    expect((await tokens.of(BSC, adapter)).size).toBe(2);
    expect(asked.filter((contract) => contract === USDT.contract)).toHaveLength(3);
    expect(asked.filter((contract) => contract === USDC.contract)).toHaveLength(1);
    expect(tokens.unverifiedTokens()).toEqual([]);
    expect(tokens.refusedTokens()).toEqual([]);
  });

  it('holds the network while a contract does not answer decimals(), asking again each tick', async () => {
    // An unsynced URL answers "0x" for a real contract: the same error as no contract at all.
    const noContract = new ChainError('permanent', 'eth_call decimals(): BAD_DATA', 'BSC');
    const { adapter, asked, answers } = fakeAdapter({
      [USDT.contract]: noContract,
      [USDC.contract]: 18,
    });
    for (let tick = 0; tick < 2; tick++) {
      await expect(tokens.of(BSC, adapter)).rejects.toMatchObject({
        kind: 'permanent',
        message: 'decimals() of USDT could not be checked: eth_call decimals(): BAD_DATA',
      });
    }
    expect(tokens.unverifiedTokens()).toEqual([
      {
        network: 'BSC',
        currency: 'USDT',
        contract: USDT.contract,
        configured: 18,
        reason: 'eth_call decimals(): BAD_DATA',
        transient: false,
      },
    ]);
    expect(errors).toHaveBeenCalledTimes(1);
    answers[USDT.contract] = 18;
    expect((await tokens.of(BSC, adapter)).size).toBe(2);
    expect(asked.filter((contract) => contract === USDT.contract)).toHaveLength(3);
    expect(tokens.unverifiedTokens()).toEqual([]);
  });

  it('shares one question between concurrent callers', async () => {
    const { adapter } = fakeAdapter({ [USDT.contract]: 18, [USDC.contract]: 18 });
    await Promise.all([
      tokens.of(BSC, adapter),
      tokens.of(BSC, adapter),
      tokens.check(BSC, adapter),
    ]);
    expect(adapter.getTokenDecimals).toHaveBeenCalledTimes(2);
  });

  it('keeps answers per network and contract', async () => {
    const { adapter } = fakeAdapter({ [USDT.contract]: 18, [USDC.contract]: 18 });
    const other: NetworkConfig = { ...BSC, name: 'POLYGON' };
    await tokens.of(BSC, adapter);
    await tokens.of(other, adapter);
    expect(adapter.getTokenDecimals).toHaveBeenCalledTimes(4);
  });
});
