import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { IntegerSetting } from './integer-setting';

const DECIMAL_AMOUNT = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$/;
const DECIMAL_PERCENT = /^(0|[1-9][0-9]?)(\.[0-9]{1,4})?$/;
const NETWORK_KEY = '[A-Z]+';
const PAIR_KEY = '[A-Z]+:[A-Z]+';
/** "KEY=1.5,OTHER=2" (or empty): per-network or per-pair decimal settings in one variable. */
const decimalMap = (key: string) =>
  new RegExp(`^(${key}=[0-9]{1,12}(\\.[0-9]{1,6})?(,${key}=[0-9]{1,12}(\\.[0-9]{1,6})?)*)?$`);

/**
 * The variables of the work on chains: deposit scanning, payouts and the treasury's sweeps and
 * reconciliation. The first of the base classes of EnvironmentVariables (see there for their
 * order); on its own it is never validated.
 */
export class ChainVariables {
  @IntegerSetting({ min: 100, max: 600000 })
  DEPOSIT_SCAN_INTERVAL_MS = 3000;

  @IsOptional()
  @IsString({ message: 'TRONGRID_API_KEY must be a string.' })
  TRONGRID_API_KEY?: string;

  @Matches(DECIMAL_PERCENT, {
    message: 'PAYOUT_FEE_PERCENT must be a decimal from 0 to 99.9999, e.g. "0.5".',
  })
  PAYOUT_FEE_PERCENT = '0';

  @Matches(decimalMap(NETWORK_KEY), {
    message: 'PAYOUT_NETWORK_FEES must be a comma list of NETWORK=AMOUNT, e.g. "TRON=1,BSC=0.2".',
  })
  PAYOUT_NETWORK_FEES = '';

  @Matches(DECIMAL_AMOUNT, { message: 'PAYOUT_MIN_AMOUNT must be a decimal amount, e.g. "1".' })
  PAYOUT_MIN_AMOUNT = '1';

  @Matches(DECIMAL_AMOUNT, {
    message: 'PAYOUT_MAX_AMOUNT must be a decimal amount, e.g. "1000000".',
  })
  PAYOUT_MAX_AMOUNT = '1000000';

  @Matches(DECIMAL_AMOUNT, {
    message: 'PAYOUT_REVIEW_THRESHOLD must be a decimal amount, e.g. "10000".',
  })
  PAYOUT_REVIEW_THRESHOLD = '10000';

  @Matches(decimalMap(PAIR_KEY), {
    message:
      'PAYOUT_REVIEW_THRESHOLDS must be a comma list of NETWORK:CURRENCY=AMOUNT, e.g. "TRON:USDT=5000".',
  })
  PAYOUT_REVIEW_THRESHOLDS = '';

  @IsOptional()
  @IsString({ message: 'HOT_WALLETS_FILE must be a path to a JSON file of hot wallet keys.' })
  HOT_WALLETS_FILE?: string;

  @IsIn(['wait', 'fail'], { message: 'PAYOUT_HOT_WALLET_SHORTFALL must be "wait" or "fail".' })
  PAYOUT_HOT_WALLET_SHORTFALL: 'wait' | 'fail' = 'wait';

  @IntegerSetting({ min: 1000, max: 86400000 })
  PAYOUT_REPLACE_AFTER_MS = 120000;

  /** In-flight payouts the tracker looks at per tick and network (docs/payouts.md). */
  @IntegerSetting({ min: 2, max: 100000 })
  PAYOUT_TRACK_WINDOW = 500;

  @Matches(decimalMap(NETWORK_KEY), {
    message: 'PAYOUT_MAX_FEE_GWEI must be a comma list of NETWORK=GWEI, e.g. "ETHEREUM=300".',
  })
  PAYOUT_MAX_FEE_GWEI = '';

  @IsOptional()
  @IsString({
    message: 'TREASURY_FILE must be a path to a JSON file of per-network treasury settings.',
  })
  TREASURY_FILE?: string;

  @IsOptional()
  @IsString({ message: 'SWEEPER_KEYS_FILE must be a path to a JSON file of sweeper keys.' })
  SWEEPER_KEYS_FILE?: string;

  @IsOptional()
  @IsString({
    message: 'DEPOSIT_KEYS_FILE must be a path to a JSON file of deposit account xprvs.',
  })
  DEPOSIT_KEYS_FILE?: string;

  @IntegerSetting({ min: 100, max: 86400000 })
  TREASURY_SWEEP_INTERVAL_MS = 60000;

  @IntegerSetting({ min: 1000, max: 86400000 })
  TREASURY_RECONCILE_INTERVAL_MS = 300000;

  @IntegerSetting({ min: 1000, max: 604800000 })
  TREASURY_RECONCILE_FULL_INTERVAL_MS = 3600000;

  @IntegerSetting({ min: 100, max: 600000 })
  PAYOUT_TRACK_INTERVAL_MS = 1000;

  @IntegerSetting({ min: 100, max: 3600000 })
  PAYOUT_RETRY_DELAY_MS = 30000;

  @IntegerSetting({ min: 1, max: 64 })
  PAYOUT_SEND_CONCURRENCY = 8;

  @Matches(/^[1-9][0-9]{0,11}$/, {
    message: 'PAYOUT_TRON_FEE_LIMIT_SUN must be a whole number of sun, e.g. "30000000".',
  })
  PAYOUT_TRON_FEE_LIMIT_SUN = '30000000';
}
