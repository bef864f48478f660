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
    expect(fundingIn(true).applies({ livemode: true })).toBe(false);
    expect(fundingIn(true).applies({ livemode: false })).toBe(false);
  });

  it('skips a live payout in the sandbox, checks a test one', () => {
    expect(fundingIn(false).applies({ livemode: true })).toBe(false);
    expect(fundingIn(false).applies({ livemode: false })).toBe(true);
  });
});
