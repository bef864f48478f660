import { errorSummary, MAX_ERROR_SUMMARY_LENGTH } from './error-summary';

describe('errorSummary', () => {
  it('keeps a plain RPC error as it is', () => {
    expect(errorSummary('eth_blockNumber: node unreachable (ECONNREFUSED)')).toBe(
      'eth_blockNumber: node unreachable (ECONNREFUSED)',
    );
    expect(errorSummary('TRON getNowBlock: HTTP 503')).toBe('TRON getNowBlock: HTTP 503');
  });

  it('never shows a URL: private endpoints carry their key in it', () => {
    const summary = errorSummary(
      'request to https://eth-mainnet.g.alchemy.com/v2/s3cr3tKeyAbc123 failed, reason: timeout ' +
        '(wss://mainnet.infura.io/ws/v3/0123456789abcdef0123456789abcdef)',
    );
    expect(summary).toBe('request to [url] failed, reason: timeout ([url])');
  });

  it('removes values that look like credentials', () => {
    const summary = errorSummary(
      'bad response apikey=abc123 token: "xyz" Authorization: Bearer eyJhbGciOi.J9x, ' +
        'project 9aa3d95b3bc440fa88ea12eaa4456161 over limit',
    );
    expect(summary).not.toMatch(/abc123|xyz|eyJhbGciOi|9aa3d95b3bc440fa88ea12eaa4456161/);
    expect(summary).toContain('apikey=[redacted]');
    expect(summary).toContain('project [redacted] over limit');
  });

  it('keeps public hex (hashes, addresses) and short words', () => {
    const hash = `0x${'ab'.repeat(32)}`;
    expect(errorSummary(`block ${hash} not found`)).toBe(`block ${hash} not found`);
  });

  it('is one line of at most 200 characters, never empty', () => {
    const summary = errorSummary(`first line\n\n  second ${'word '.repeat(100)}`);
    expect(summary).not.toMatch(/\n/);
    expect(summary.length).toBeLessThanOrEqual(MAX_ERROR_SUMMARY_LENGTH);
    expect(summary.endsWith('…')).toBe(true);
    expect(errorSummary('   ')).toBe('unknown error');
  });
});
