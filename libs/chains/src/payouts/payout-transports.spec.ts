import { AppConfig } from '@app/common';
import { NetworkRegistry } from '../networks/network-registry';
import { ChainError } from '../rpc/chain-error';
import { EthersPayoutTransport } from './evm-payout-transport';
import { PayoutTransports } from './payout-transports';
import { TronNodePayoutTransport } from './tron-payout-transport';

describe('PayoutTransports', () => {
  const config = { trongridApiKey: undefined } as AppConfig;

  it('creates one transport per network, of the network’s family, on first use', async () => {
    const transports = new PayoutTransports(new NetworkRegistry('sandbox'), config);

    const ethereum = transports.transportFor('ETHEREUM');
    const tron = transports.transportFor('TRON');

    expect(ethereum).toBeInstanceOf(EthersPayoutTransport);
    expect(ethereum).toMatchObject({ family: 'EVM', network: { name: 'ETHEREUM' } });
    expect(tron).toBeInstanceOf(TronNodePayoutTransport);
    expect(tron.family).toBe('TRON');
    expect(transports.transportFor('ETHEREUM')).toBe(ethereum);
    await transports.onModuleDestroy();
  });

  it('closes the transports with the module; later use gets new ones', async () => {
    const transports = new PayoutTransports(new NetworkRegistry('sandbox'), config);
    const closed = transports.transportFor('BASE');

    await transports.onModuleDestroy();

    await expect(closed.lookup(`0x${'ab'.repeat(32)}`)).rejects.toThrow(ChainError);
    expect(transports.transportFor('BASE')).not.toBe(closed);
    await transports.onModuleDestroy();
  });
});
