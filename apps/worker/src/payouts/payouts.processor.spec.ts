import type { Queue } from 'bull';
import type { AppConfig } from '@app/common';
import { PAYOUT_JOBS } from '@app/common';
import type { PayoutReconciler, PayoutSender, PayoutTracker } from '@app/payouts';
import { PayoutsProcessor } from './payouts.processor';

describe('PayoutsProcessor', () => {
  it('takes the send concurrency from the validated config, not from process.env', async () => {
    const previous = process.env.PAYOUT_SEND_CONCURRENCY;
    process.env.PAYOUT_SEND_CONCURRENCY = '99';
    try {
      const process_ = jest.fn().mockReturnValue(new Promise(() => undefined));
      const sender = { send: jest.fn().mockResolvedValue('sent') };
      const processor = new PayoutsProcessor(
        sender as unknown as PayoutSender,
        {} as PayoutTracker,
        {} as PayoutReconciler,
        { payouts: { sendConcurrency: 3 } } as AppConfig,
        { process: process_ } as unknown as Queue,
      );
      processor.onModuleInit();
      expect(process_).toHaveBeenCalledWith(PAYOUT_JOBS.send, 3, expect.any(Function));
      const handler = process_.mock.calls[0][2] as (job: unknown) => Promise<void>;
      await handler({ data: { payoutId: 'p-1' } });
      expect(sender.send).toHaveBeenCalledWith('p-1');
    } finally {
      if (previous === undefined) delete process.env.PAYOUT_SEND_CONCURRENCY;
      else process.env.PAYOUT_SEND_CONCURRENCY = previous;
    }
  });
});
