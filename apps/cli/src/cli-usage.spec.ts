import { UNMATCHED_REASONS, UNMATCHED_STATUSES } from '@app/deposits';
import { USAGE } from './commands';

describe('CLI usage', () => {
  it('lists every reason and status unmatched:list takes', () => {
    const help = USAGE.replace(/\s+/g, ' ');
    for (const value of [...UNMATCHED_REASONS, ...UNMATCHED_STATUSES]) {
      expect(help).toContain(value);
    }
  });
});
