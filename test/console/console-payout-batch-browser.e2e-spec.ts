import Decimal from 'decimal.js';
import type { Page } from 'playwright-core';
import {
  ConsoleRig,
  navigationLink,
  screenshot,
  seriousAxeViolations,
  startConsoleRig,
} from '../support/console-browser-kit';
import { totpCode } from '../support/console-identity';
import { randomTronAddress } from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/** The current TOTP time step (30 s). Enrolment used this one: a fresh code is the next. */
const totpStep = () => Math.floor(Date.now() / 30_000);

const HEADER = 'amount,currency,network,to_address,description,metadata\r\n';
const BATCH_PATH = '/console/api/payout-batches';

/** A CSV as a spreadsheet saves it: a byte order mark, CRLF, quoted fields. */
function csvFile(rows: string[]): { name: string; mimeType: string; buffer: Buffer } {
  return {
    name: 'payouts.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`\uFEFF${HEADER}${rows.join('\r\n')}\r\n`, 'utf8'),
  };
}

/**
 * Batch payouts from a CSV file in the console (issue 26), in a real Chromium against the real
 * API: the preview and its exact totals, a refused row shown against its CSV row with nothing
 * created, one batch however often it is submitted, its page, and its payouts listed by batch.
 */
describe('Console: upload a payout batch in Chromium', () => {
  let rig: ConsoleRig;
  let api: TestApi;
  let baseUrl: string;
  let merchant: TestMerchant;

  beforeAll(async () => {
    rig = await startConsoleRig();
    ({ api, baseUrl } = rig);
    merchant = await rig.createPayoutMerchant('Browser Batches', '1000');
  });

  // The merchant's payouts still held are rejected.
  afterAll(() => rig?.close());

  const batchCount = () => api.count('payout_batches', 'merchant_id = $1', [merchant.id]);
  const payoutCount = () => api.count('payouts', 'merchant_id = $1', [merchant.id]);

  /** A new owner signed in, on the upload page; each test has its own fresh codes. */
  async function openUploadPage() {
    const { member: owner, ...opened } = await rig.signIn(merchant, 'owner');
    const { page } = opened;
    await navigationLink(page, 'Payouts').click();
    await page.getByRole('heading', { name: 'Payouts' }).waitFor();
    await page.getByRole('button', { name: 'Upload batch (CSV)' }).click();
    await page.getByRole('heading', { name: 'Upload a payout batch' }).waitFor();
    return { ...opened, owner };
  }

  async function choose(page: Page, rows: string[]) {
    await page.getByLabel('CSV file').setInputFiles(csvFile(rows));
    await page.getByRole('heading', { name: 'Preview' }).waitFor();
  }

  const postsTo = (page: Page) => {
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === BATCH_PATH) {
        posts.push(request.postData() ?? '');
      }
    });
    return posts;
  };

  it('shows a refused row against its CSV row and creates nothing', async () => {
    const { page, context, owner, cspViolations } = await openUploadPage();
    await choose(page, [
      `10,USDT,TRON,${randomTronAddress()},First,`,
      `20,USDT,TRON,TNotAnAddress,"Second, with a comma",`,
      `30,USDT,TRON,${randomTronAddress()},Third,"{""seller_id"":""s_3""}"`,
    ]);
    expect(await page.getByText('payouts.csv: 3 payouts.').count()).toBe(1);
    const totals = page.getByRole('table', { name: 'Totals per network and currency' });
    expect(await totals.getByRole('row').nth(1).textContent()).toBe('TRONUSDT360 USDT');

    await page.getByLabel('Authentication code').fill(totpCode(owner.secret, 1));
    await page.getByRole('button', { name: 'Create batch of 3 payouts' }).click();
    // Item 1 of the request is row 3 of the file (the header is row 1).
    const problems = page.getByRole('list', { name: 'Problems by row' }).getByRole('listitem');
    await problems.first().waitFor();
    expect(await problems.count()).toBe(1);
    expect(await problems.first().textContent()).toMatch(/^Row 3, to_address: .*TRON address/);
    const rowThree = page
      .getByRole('table', { name: 'Payouts of the file' })
      .getByRole('row', { name: /^3 / });
    expect(await rowThree.textContent()).toMatch(/to_address: .*TRON address/);
    // The same file cannot be sent again: it must be corrected and chosen anew.
    expect(await page.getByRole('button', { name: 'Create batch of 3 payouts' }).isDisabled()).toBe(
      true,
    );
    expect(await batchCount()).toBe(0);
    expect(await payoutCount()).toBe(0);
    await screenshot(page, 'payout-batch-refused-row');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it('creates one batch of three payouts however often it is submitted, and lists them by batch', async () => {
    const { page, context, owner, cspViolations } = await openUploadPage();
    const posts = postsTo(page);
    const addresses = [randomTronAddress(), randomTronAddress(), randomTronAddress()];
    await choose(page, [
      `2.2,USDT,TRON,${addresses[0]},Seller 1,`,
      `3,usdt,tron,${addresses[1]},"Seller ""2""",`,
      `1.1,USDT,TRON,${addresses[2]},,"{""seller_id"":""s_3""}"`,
    ]);
    // Summed exactly: 2.2 + 3 + 1.1 in binary floats is 6.300000000000001.
    const totals = page.getByRole('table', { name: 'Totals per network and currency' });
    expect(await totals.getByRole('row').nth(1).textContent()).toBe('TRONUSDT36.3 USDT');
    await page.getByLabel('Authentication code').fill(totpCode(owner.secret, 1));
    await page.getByRole('button', { name: 'Create batch of 3 payouts' }).dblclick();
    await page.getByRole('heading', { name: /^Payout batch pob_/ }).waitFor();
    await waitFor(async () => (await batchCount()) === 1, 30_000, 'the batch created');
    expect(posts).toHaveLength(1);
    expect(await payoutCount()).toBe(3);
    const [batch]: Array<{ id: string }> = await api.dataSource.query(
      `SELECT id FROM payout_batches WHERE merchant_id = $1`,
      [merchant.id],
    );
    expect(page.url()).toBe(`${baseUrl}/console/payouts/batches/${batch.id}`);
    const payouts: Array<{
      amount: string;
      to_address: string;
      description: string | null;
      metadata: string | null;
    }> = await api.dataSource.query(
      `SELECT amount::text AS amount, to_address, description, metadata FROM payouts
          WHERE batch_id = $1 ORDER BY amount`,
      [batch.id],
    );
    expect(
      payouts.map((payout) => [new Decimal(payout.amount).toFixed(), payout.to_address]),
    ).toEqual([
      ['1.1', addresses[2]],
      ['2.2', addresses[0]],
      ['3', addresses[1]],
    ]);
    expect(payouts.map((payout) => payout.description)).toEqual([null, 'Seller 1', 'Seller "2"']);
    expect(payouts[0].metadata).toBe('{"seller_id":"s_3"}');
    // The batch's page: its counts and totals per status, read from its payouts.
    await page.getByText('6.3 USDT').first().waitFor();
    await screenshot(page, 'payout-batch-detail');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'View its 3 payouts' }).click();
    await page.getByRole('heading', { name: 'Payouts' }).waitFor();
    expect(new URL(page.url()).searchParams.get('batch_id')).toBe(batch.id);
    await waitFor(
      async () => (await page.getByRole('table').getByRole('row').count()) === 4,
      30_000,
      'the batch payouts listed',
    );
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it('replays the same batch when the answer was lost and the form is sent again', async () => {
    const { page, context, owner, cspViolations } = await openUploadPage();
    const posts = postsTo(page);
    // The first answer is lost on its way back: the batch exists, the browser does not know it.
    let firstBatchId = '';
    await page.route(`**${BATCH_PATH}`, async (route) => {
      if (firstBatchId) return route.continue();
      const response = await route.fetch();
      firstBatchId = ((await response.json()) as { id: string }).id;
      await route.abort('connectionreset');
    });
    await choose(page, [
      `5,USDT,TRON,${randomTronAddress()},Retry 1,`,
      `7,USDT,TRON,${randomTronAddress()},Retry 2,`,
    ]);
    const firstStep = totpStep();
    await page.getByLabel('Authentication code').fill(totpCode(owner.secret, 1));
    await page.getByRole('button', { name: 'Create batch of 2 payouts' }).click();
    await page.getByRole('alert').first().waitFor();
    expect(firstBatchId).toMatch(/^pob_/);
    // A code is used once: the next one exists when the clock reaches the next 30-second step.
    await waitFor(async () => totpStep() > firstStep, 45_000, 'the next TOTP step');
    // The same upload, so the same idempotency key, with the next code.
    await page.getByLabel('Authentication code').fill(totpCode(owner.secret, 1));
    await page.getByRole('button', { name: 'Create batch of 2 payouts' }).click();
    await page.getByRole('heading', { name: /^Payout batch pob_/ }).waitFor();
    expect(page.url()).toBe(`${baseUrl}/console/payouts/batches/${firstBatchId}`);
    expect(posts).toHaveLength(2);
    const keys = posts.map(
      (body) => (JSON.parse(body) as { idempotency_key: string }).idempotency_key,
    );
    expect(keys[0]).toBe(keys[1]);
    expect(await batchCount()).toBe(2);
    expect(await api.count('payouts', 'batch_id = $1', [firstBatchId])).toBe(2);

    // Listed by batch: 2 of the merchant's 5 payouts.
    await page.getByRole('link', { name: 'View its 2 payouts' }).click();
    await page.getByRole('heading', { name: 'Payouts' }).waitFor();
    await waitFor(
      async () => (await page.getByRole('table').getByRole('row').count()) === 3,
      30_000,
      'the batch payouts listed',
    );
    expect(await payoutCount()).toBe(5);
    // The Batches list has both.
    await page.getByRole('link', { name: 'Payout batches' }).click();
    await page.getByRole('heading', { name: 'Payout batches' }).waitFor();
    await waitFor(
      async () => (await page.getByRole('table').getByRole('row').count()) === 3,
      30_000,
      'both batches listed',
    );
    expect(await page.getByRole('link', { name: firstBatchId }).count()).toBe(1);
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it('offers the upload to roles that may create payouts only', async () => {
    const { context, page } = await rig.signIn(merchant, 'viewer');
    await navigationLink(page, 'Payouts').click();
    await page.getByRole('heading', { name: 'Payouts' }).waitFor();
    await page.getByRole('link', { name: 'Payout batches' }).waitFor();
    expect(await page.getByRole('button', { name: 'Upload batch (CSV)' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create payout' }).count()).toBe(0);
    await page.goto(`${baseUrl}/console/payouts/batches/new`);
    await page.getByRole('heading', { name: 'You do not have access' }).waitFor();
    expect(await page.getByLabel('CSV file').count()).toBe(0);
    await context.close();
  });
});
