import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { opsApi } from '../../api/ops-api';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';

/** Every merchant, newest first, 100 a page by cursor (`has_more`, `starting_after`). */
export function MerchantsPage() {
  // The cursors of the pages seen: undefined is the first page.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const merchants = useQuery({
    queryKey: ['ops', 'merchants', cursor],
    queryFn: () => opsApi.merchants(cursor),
    placeholderData: keepPreviousData,
  });
  const rows = merchants.data?.data;
  const lastId = rows?.[rows.length - 1]?.id;
  return (
    <section aria-labelledby="merchants-title">
      <h1 id="merchants-title">{t('ops.merchants')}</h1>
      {merchants.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={merchants.error} />
      {rows && rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('ops.merchantName')}</th>
              <th scope="col">{t('ops.kind')}</th>
              <th scope="col">{t('ops.activeKeys')}</th>
              <th scope="col">{t('ops.revokedKeys')}</th>
              <th scope="col">{t('payouts.created')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((merchant) => (
              <tr key={merchant.id}>
                <th scope="row">
                  <Link to="/merchants/$merchantId" params={{ merchantId: merchant.id }}>
                    {merchant.name}
                  </Link>
                </th>
                <td>{merchant.kind}</td>
                <td>{merchant.keys.active}</td>
                <td>{merchant.keys.revoked}</td>
                <td>{formatDateTime(merchant.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        pageNumber={cursors.length}
        hasPrevious={cursors.length > 1}
        hasNext={
          Boolean(merchants.data?.has_more) && !merchants.isPlaceholderData && lastId !== undefined
        }
        onPrevious={() => setCursors(cursors.slice(0, -1))}
        onNext={() => setCursors([...cursors, lastId])}
      />
    </section>
  );
}
