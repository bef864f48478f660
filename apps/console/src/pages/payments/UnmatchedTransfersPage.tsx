import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { listPath, PAGE_SIZE } from '../../api/list';
import { createdRangeQuery, DateRange, DateRangeFilter } from '../../components/DateRangeFilter';
import { ListPage, SelectFilter } from '../../components/ListPage';
import { usePagedList } from '../../components/usePagedList';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';
import {
  UNMATCHED_REASONS,
  UNMATCHED_STATUSES,
  UnmatchedTransfer,
  unmatchedTransferColumns,
} from './unmatched-transfer-columns';

/**
 * Transfers to the merchant's pay addresses that no session took, newest first, 100 a page,
 * filtered by reason, status and day, each with "Refund" for members who may refund.
 */
export function UnmatchedTransfersPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'checkout_sessions:read');
  const [reason, setReason] = useState('');
  const [status, setStatus] = useState('');
  const [range, setRange] = useState<DateRange>({ from: '', until: '' });
  const path = listPath('/v1/unmatched-transfers', {
    page_size: PAGE_SIZE,
    include_sub_merchants: true,
    reason: reason || undefined,
    status: status || undefined,
    ...createdRangeQuery(range),
  });
  const list = usePagedList<UnmatchedTransfer>(
    ['unmatched-transfers', session?.merchant?.id],
    path,
    allowed,
  );
  return (
    <ListPage
      titleId="unmatched-title"
      title={t('unmatched.title')}
      allowed={allowed}
      intro={t('unmatched.intro')}
      actions={<Link to="/payments">{t('unmatched.back')}</Link>}
      filters={
        <>
          <SelectFilter
            label={t('unmatched.reason')}
            options={UNMATCHED_REASONS}
            value={reason}
            onChange={setReason}
          />
          <SelectFilter
            label={t('unmatched.status')}
            options={UNMATCHED_STATUSES}
            value={status}
            onChange={setStatus}
          />
          <DateRangeFilter value={range} onChange={setRange} />
        </>
      }
      list={list}
      columns={unmatchedTransferColumns({
        withPayment: true,
        canRefund: can(session, 'refunds:write'),
      })}
      rowKey={(item) => item.id}
      empty={t('unmatched.empty')}
    />
  );
}
