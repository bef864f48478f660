import type { AppConfig } from '@app/common';
import type { LedgerService } from '@app/ledger';
import type { PayoutEvents } from '../payout-events';
import type { PayoutJournalRepository } from './payout-journal.repository';
import { SandboxFunding } from './sandbox-funding';

function fundingIn(livemode: boolean): SandboxFunding {
  // `applies` reads the configuration only: nothing else is reached.
  return new SandboxFunding(
    { livemode } as AppConfig,
    {} as PayoutJournalRepository,
    {} as LedgerService,
    {} as PayoutEvents,
  );
}

describe('SandboxFunding.applies: the funding check never runs in production', () => {
  it('skips every payout when APP_ENV=production', () => {
    expect(fundingIn(true).applies()).toBe(false);
  });

  it('checks every payout in the sandbox, a live row included (the deployment decides)', () => {
    expect(fundingIn(false).applies()).toBe(true);
  });
});
