import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES } from '@app/events';
import { toRefundDto } from './refund.mapper';
import { REFUND_STATUSES, RefundRecord } from './refund.types';

const DOC = readFileSync(join(__dirname, '../../../docs/events-and-webhooks.md'), 'utf8');
const REFUND_SECTION = DOC.slice(DOC.indexOf('### Refund events'));

/** docs/events-and-webhooks.md documents every refund.* event: when, previous status, payload. */
describe('refund events documentation', () => {
  const refundTypes = EVENT_TYPES.filter((type) => type.startsWith('refund.'));

  it('has a row in the types table and a paragraph for every refund.* type', () => {
    expect(refundTypes.length).toBeGreaterThan(0);
    expect(DOC).toContain('### Refund events');
    for (const type of refundTypes) {
      expect(DOC).toMatch(new RegExp(`\\| \`${type.replace('.', '\\.')}\` +\\|`));
      expect(REFUND_SECTION).toContain(`- \`${type}\`:`);
    }
  });

  it('names every field of the refund object the events carry', () => {
    const sample = toRefundDto({
      id: 're_x',
      status: REFUND_STATUSES[0],
      amount: '1',
      fee: '0',
      net_amount: '1',
      created_at: new Date(),
      completed_at: null,
    } as RefundRecord);
    for (const field of Object.keys(sample)) expect(REFUND_SECTION).toContain(`\`${field}\``);
  });
});
