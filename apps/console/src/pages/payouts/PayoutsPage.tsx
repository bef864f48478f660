import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { listPath, PAGE_SIZE } from '../../api/list';
import { Payout, PAYOUT_STATUSES } from '../../api/v1-types';
import { AccessDenied } from '../../components/AccessDenied';
import { createdRangeQuery, DateRange, DateRangeFilter } from '../../components/DateRangeFilter';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

/** Payouts, newest first, 100 a page, filtered by status and creation day. */
export function PayoutsPage() {
  const { data: session } = useSession();
  const navigate = useNavigate();
  const allowed = can(session, 'payouts:read');
  const [status, setStatus] = useState('');
  const [range, setRange] = useState<DateRange>({ from: '', until: '' });
  const path = listPath('/v1/payouts', {
    page_size: PAGE_SIZE,
    include_sub_merchants: true,
    status: status || undefined,
    ...createdRangeQuery(range),
  });
  const list = usePagedList<Payout>(['payouts', session?.merchant?.id], path, allowed);
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const payouts = list.query.data?.items;
  return (
    <section aria-labelledby="payouts-title">
      <h1 id="payouts-title">{t('payouts.title')}</h1>
      {can(session, 'payouts:write') && (
        <p>
          <button type="button" onClick={() => navigate({ to: '/payouts/new' })}>
            {t('payouts.create')}
          </button>
        </p>
      )}
      <form className="filters" aria-label={t('filters.label')}>
        <label>
          {t('payouts.status')}
          <select value={status} onChange={(event) => setStatus(event.target.value)}>
            <option value="">{t('filters.any')}</option>
            {PAYOUT_STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <DateRangeFilter value={range} onChange={setRange} />
      </form>
      {list.query.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={list.query.error} />
      {payouts?.length === 0 && <p>{t('payouts.empty')}</p>}
      {payouts && payouts.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('payouts.id')}</th>
              <th scope="col">{t('payouts.status')}</th>
              <th scope="col" className="amount">
                {t('payouts.amount')}
              </th>
              <th scope="col">{t('payouts.network')}</th>
              <th scope="col">{t('payouts.toAddress')}</th>
              <th scope="col">{t('payouts.created')}</th>
            </tr>
          </thead>
          <tbody>
            {payouts.map((item) => (
              <tr key={item.id}>
                <th scope="row">
                  <Link to="/payouts/$payoutId" params={{ payoutId: item.id }}>
                    <code>{item.id}</code>
                  </Link>
                </th>
                <td>
                  <span className={`status status-${item.status.toLowerCase()}`}>
                    {item.status}
                  </span>
                </td>
                <td className="amount">
                  {groupDigits(item.amount)} {item.currency}
                </td>
                <td>{item.network}</td>
                <td>
                  <code className="hash">{item.to_address}</code>
                </td>
                <td>{formatDateTime(item.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        pageNumber={list.pageNumber}
        hasPrevious={list.hasPrevious}
        hasNext={list.hasNext}
        onPrevious={list.goPrevious}
        onNext={list.goNext}
      />
    </section>
  );
}
