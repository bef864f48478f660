import { ConfigurationError } from './environment-variables';

/** Runs a configuration check; on failure prints the reasons (never a stack) and exits with 1. */
export function exitOnConfigurationError<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (
      !(error instanceof ConfigurationError) &&
      !/^(NETWORKS_FILE|FX_RATES_FILE|HD_)/.test((error as Error).message)
    ) {
      throw error;
    }
    console.error((error as Error).message);
    process.exit(1);
  }
}
