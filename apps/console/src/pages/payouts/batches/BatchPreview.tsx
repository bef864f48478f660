import { Fragment } from 'react';
import { groupDigits } from '../../../format';
import { hasMessage, t } from '../../../i18n/t';
import { batchTotals, BatchItem, RowError, rowOfIndex } from './batch-csv';

/** A problem in words: the API's own, or the page's for the browser's checks. */
function describeRowError(error: RowError): string {
  if (error.message) return error.message;
  const key = `payoutBatches.error.${error.code}`;
  return hasMessage(key) ? t(key, { field: error.field }) : error.code;
}

/**
 * What the file holds before it is sent: its row count, totals per currency and network (summed
 * exactly, batch-csv.ts), every problem by CSV row, and the rows themselves with their problems.
 */
export function BatchPreview(props: { fileName: string; items: BatchItem[]; errors: RowError[] }) {
  const { items, errors } = props;
  const totals = batchTotals(items);
  const byRow = new Map<number, RowError[]>();
  for (const error of errors) byRow.set(error.row, [...(byRow.get(error.row) ?? []), error]);
  return (
    <>
      <h2>{t('payoutBatches.previewTitle')}</h2>
      <p>{t('payoutBatches.rowCount', { file: props.fileName, count: items.length })}</p>
      {errors.length > 0 && (
        <div role="alert" className="error">
          <p>{t('payoutBatches.problems', { count: errors.length })}</p>
          <ul aria-label={t('payoutBatches.problemsLabel')}>
            {errors.map((error, index) => (
              <li key={index}>
                {t('payoutBatches.problem', {
                  row: error.row,
                  field: error.field,
                  message: describeRowError(error),
                })}
              </li>
            ))}
          </ul>
        </div>
      )}
      {totals.length > 0 && (
        <table aria-label={t('payoutBatches.totalsLabel')}>
          <thead>
            <tr>
              <th scope="col">{t('payouts.network')}</th>
              <th scope="col">{t('payouts.currency')}</th>
              <th scope="col" className="amount">
                {t('payoutBatches.rows')}
              </th>
              <th scope="col" className="amount">
                {t('payoutBatches.total')}
              </th>
            </tr>
          </thead>
          <tbody>
            {totals.map((total) => (
              <tr key={`${total.network}:${total.currency}`}>
                <th scope="row">{total.network}</th>
                <td>{total.currency}</td>
                <td className="amount">{total.count}</td>
                <td className="amount">{`${groupDigits(total.amount)} ${total.currency}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {items.length > 0 && (
        <table aria-label={t('payoutBatches.rowsLabel')}>
          <thead>
            <tr>
              <th scope="col">{t('payoutBatches.row')}</th>
              <th scope="col" className="amount">
                {t('payouts.amount')}
              </th>
              <th scope="col">{t('payouts.network')}</th>
              <th scope="col">{t('payouts.toAddress')}</th>
              <th scope="col">{t('payouts.description')}</th>
              <th scope="col">{t('payoutBatches.rowProblems')}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item, index) => {
              const row = rowOfIndex(index);
              const problems = byRow.get(row) ?? [];
              return (
                <tr key={row}>
                  <th scope="row">{row}</th>
                  <td className="amount">{`${groupDigits(item.amount)} ${item.currency}`}</td>
                  <td>{item.network}</td>
                  <td>
                    <code className="hash">{item.to_address}</code>
                  </td>
                  <td>{item.description}</td>
                  <td>
                    {problems.map((problem, at) => (
                      <Fragment key={at}>
                        {at > 0 && <br />}
                        {`${problem.field}: ${describeRowError(problem)}`}
                      </Fragment>
                    ))}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
