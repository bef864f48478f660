import { AccessDenied } from '../components/AccessDenied';
import { BalancesTable } from '../components/BalancesTable';
import { t } from '../i18n/t';
import { can, useSession } from '../session';

/** Balances: per currency and network, what is available to pay out and what is held. */
export function BalancesPage() {
  const { data: session } = useSession();
  if (!can(session, 'balances:read')) {
    return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  }
  return (
    <section aria-labelledby="balances-title">
      <h1 id="balances-title">{t('balances.title')}</h1>
      <p>{t('balances.intro')}</p>
      <BalancesTable merchantId={session?.merchant?.id} />
    </section>
  );
}
