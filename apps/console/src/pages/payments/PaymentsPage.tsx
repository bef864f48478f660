import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { listPath, PAGE_SIZE } from '../../api/list';
import { CheckoutSession, SESSION_STATUSES } from '../../api/v1-types';
import { AccessDenied } from '../../components/AccessDenied';
import { createdRangeQuery, DateRange, DateRangeFilter } from '../../components/DateRangeFilter';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

/** Checkout sessions, newest first, 100 a page, filtered by status and creation day. */
export function PaymentsPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'checkout_sessions:read');
  const [status, setStatus] = useState('');
  const [range, setRange] = useState<DateRange>({ from: '', until: '' });
  const path = listPath('/v1/checkout/sessions', {
    page_size: PAGE_SIZE,
    include_sub_merchants: true,
    status: status || undefined,
    ...createdRangeQuery(range),
  });
  const list = usePagedList<CheckoutSession>(
    ['checkout-sessions', session?.merchant?.id],
    path,
    allowed,
  );
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const sessions = list.query.data?.items;
  return (
    <section aria-labelledby="payments-title">
      <h1 id="payments-title">{t('payments.title')}</h1>
      <form className="filters" aria-label={t('filters.label')}>
        <label>
          {t('payments.status')}
          <select value={status} onChange={(event) => setStatus(event.target.value)}>
            <option value="">{t('filters.any')}</option>
            {SESSION_STATUSES.map((value) => (
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
      {sessions?.length === 0 && <p>{t('payments.empty')}</p>}
      {sessions && sessions.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('payments.id')}</th>
              <th scope="col">{t('payments.status')}</th>
              <th scope="col" className="amount">
                {t('payments.amount')}
              </th>
              <th scope="col" className="amount">
                {t('payments.received')}
              </th>
              <th scope="col">{t('payments.network')}</th>
              <th scope="col">{t('payments.reference')}</th>
              <th scope="col">{t('payments.created')}</th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((item) => (
              <tr key={item.id}>
                <th scope="row">
                  <Link to="/payments/$sessionId" params={{ sessionId: item.id }}>
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
                <td className="amount">{groupDigits(item.amount_received)}</td>
                <td>{item.network}</td>
                <td>{item.client_reference_id ?? ''}</td>
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
