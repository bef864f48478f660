import { Wallet } from 'ethers';
import { EthersPayoutTransport } from '@app/chains';
import { DEVNET_ACCOUNTS, Devnet, startDevnet } from './support/devnet';

/*
 * A gas top-up sweep ends "abandoned" only when the deposit address's nonce is proven used by a
 * transaction that is not its transfer (nonceConsumer). An EIP-7702 authorization the address
 * signed takes its nonce too, inside someone else's type-4 transaction: that transaction is the
 * consumer, found in the block that used the nonce (review 2, sweeps gap).
 */
describe('nonceConsumer finds a nonce taken by an EIP-7702 authorization', () => {
  let devnet: Devnet;
  let transport: EthersPayoutTransport;

  beforeAll(async () => {
    devnet = await startDevnet();
    transport = new EthersPayoutTransport(devnet.networkConfig());
  }, 60_000);

  afterAll(async () => {
    await transport?.close();
    await devnet?.stop();
  });

  it("names the type-4 transaction that carried the address's authorization", async () => {
    const address = Wallet.createRandom();
    const authorization = await address.authorize({
      address: DEVNET_ACCOUNTS.payer.address,
      nonce: 0,
      chainId: devnet.chainId,
    });
    const sent = await devnet.payer.sendTransaction({
      type: 4,
      to: DEVNET_ACCOUNTS.payer.address,
      authorizationList: [authorization],
    });
    const receipt = (await sent.wait())!;
    expect(await transport.transactionCount(address.address, 'latest')).toBe(1);

    expect(await transport.nonceConsumer(address.address, 0)).toMatchObject({
      txHash: sent.hash.toLowerCase(),
      blockNumber: receipt.blockNumber,
    });
    // A nonce it has not used yet has no consumer.
    expect(await transport.nonceConsumer(address.address, 1)).toBeNull();
  });
});
