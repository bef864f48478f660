import {
  TEST_DATABASE_URL,
  TEST_HD_EVM_XPUB,
  TEST_HD_TRON_XPUB,
  TEST_REDIS_URL,
} from './test-database';

// Every suite runs against the sandbox configuration on the test database.
Object.assign(process.env, {
  APP_ENV: 'sandbox',
  DATABASE_URL: TEST_DATABASE_URL,
  REDIS_URL: TEST_REDIS_URL,
  // http: the suites talk to 127.0.0.1 over plain http, where a Secure (https) console cookie
  // would never be sent back (docs/console.md).
  PUBLIC_URL: 'http://pay.test.example',
  HD_EVM_XPUB: TEST_HD_EVM_XPUB,
  HD_TRON_XPUB: TEST_HD_TRON_XPUB,
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  DATABASE_POOL_SIZE: '30',
  // Suites that watch a chain point NETWORKS_FILE at their own devnet and name the network.
  WATCH_NETWORKS: 'none',
  // Suites fire requests fast and all count in one Redis: limits only where a suite asks for them.
  RATE_LIMIT_READS_PER_SECOND: '1000000',
  RATE_LIMIT_WRITES_PER_SECOND: '1000000',
  RATE_LIMIT_CHECKOUT_PAGE_PER_MINUTE: '1000000',
  RATE_LIMIT_CONSOLE_SIGN_IN_PER_MINUTE: '1000000',
  RATE_LIMIT_CHECKOUT_STREAMS_PER_CLIENT: '1000000',
  RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '1000000',
  // Every worker a suite starts fills the pool; the production size (60,000 per family) would
  // spend minutes of the run's CPU deriving addresses no test uses.
  PAY_ADDRESS_POOL_TARGET: '500',
  // Spawned workers would all want the same port: a suite that scrapes one names its own.
  WORKER_METRICS_PORT: '0',
  // A customer's refund address is sent at once in tests; the suite of the delay sets its own.
  REFUND_DESTINATION_DELAY_MINUTES: '0',
});
