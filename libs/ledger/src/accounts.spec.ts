import { compareAccounts, LedgerAccounts } from './accounts';

describe('compareAccounts (the lock order of balance rows)', () => {
  it('sorts by bytes: merchant: before merchant_held:, capitals before lower case', () => {
    const available = LedgerAccounts.merchant('m_1', null, 'TRON', 'USDT');
    const held = LedgerAccounts.merchantHeld('m_1', null, 'TRON', 'USDT');
    expect([held, available].sort(compareAccounts)).toEqual([available, held]);
    expect(['merchant:b', 'merchant:B', 'merchant:a'].sort(compareAccounts)).toEqual([
      'merchant:B',
      'merchant:a',
      'merchant:b',
    ]);
    // A locale's order differs (en-US ignores punctuation first): the reason for bytes.
    expect([available, held].sort(new Intl.Collator('en-US').compare)).toEqual([held, available]);
  });
});
