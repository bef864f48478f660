import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { APP_CONFIG, AppConfig, loadAppConfig } from '@app/common';
import { ChainsModule } from './chains.module';
import { accountKeysFromMnemonic } from './hd/development-keys';
import { HdWallet } from './hd/hd-wallet';
import { NetworkRegistry } from './networks/network-registry';

const keys = accountKeysFromMnemonic('test test test test test test test test test test test junk');

const config: AppConfig = loadAppConfig({
  APP_ENV: 'production',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/payments',
  REDIS_URL: 'redis://127.0.0.1:6379',
  PUBLIC_URL: 'https://pay.example.com',
  HD_EVM_XPUB: keys.evmXpub,
  HD_TRON_XPUB: keys.tronXpub,
  // Production names its exchange-rate source (the file is not read here).
  FX_RATES_FILE: '/etc/payments/rates.json',
  // Production refuses to start without these (webhook secrets at rest, a closed /metrics).
  WEBHOOK_SECRETS_KEY: 'cd'.repeat(32),
  METRICS_TOKEN: 'chains-module-spec-metrics-token',
});

// Stands in for the global AppConfigModule, which reads process.env.
@Global()
@Module({ providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] })
class TestConfigModule {}

describe('ChainsModule', () => {
  it('provides the network registry and the HD wallet from APP_CONFIG', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [TestConfigModule, ChainsModule],
    }).compile();
    expect(moduleRef.get(NetworkRegistry).get('ETHEREUM').chainId).toBe(1);
    expect(moduleRef.get(HdWallet).derive('EVM', 0)).toBe(
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    );
    await moduleRef.close();
  });
});
