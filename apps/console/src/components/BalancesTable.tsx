import { useQuery } from '@tanstack/react-query';
import { dataOrThrow, v1 } from '../api/v1';
import { groupDigits } from '../format';
import { t } from '../i18n/t';
import { ErrorMessage } from './ErrorMessage';

/** Balances per network, currency and sub-merchant: available and held, as decimal strings. */
export function BalancesTable({ merchantId }: { merchantId: string | undefined }) {
  const balances = useQuery({
    queryKey: ['balances', merchantId],
    queryFn: async () =>
      dataOrThrow(
        await v1.GET('/v1/balances', { params: { query: { include_sub_merchants: true } } }),
      ),
  });
  return (
    <>
      {balances.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={balances.error} />
      {balances.data?.length === 0 && <p>{t('home.noBalances')}</p>}
      {balances.data && balances.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('home.network')}</th>
              <th scope="col">{t('home.currency')}</th>
              <th scope="col">{t('home.subMerchant')}</th>
              <th scope="col" className="amount">
                {t('home.available')}
              </th>
              <th scope="col" className="amount">
                {t('home.held')}
              </th>
            </tr>
          </thead>
          <tbody>
            {balances.data.map((balance) => (
              <tr key={`${balance.network}-${balance.currency}-${balance.sub_merchant_code ?? ''}`}>
                <td>{balance.network}</td>
                <td>{balance.currency}</td>
                <td>{balance.sub_merchant_code ?? t('home.own')}</td>
                <td className="amount">{groupDigits(balance.available)}</td>
                <td className="amount">{groupDigits(balance.held)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
