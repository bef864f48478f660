import { AccessDenied } from '../components/AccessDenied';
import { BalancesTable } from '../components/BalancesTable';
import { t } from '../i18n/t';
import { can, useSession } from '../session';

export function HomePage() {
  const { data: session } = useSession();
  const allowed = can(session, 'balances:read');
  return (
    <section aria-labelledby="home-title">
      <h1 id="home-title">{t('home.title')}</h1>
      {!allowed ? (
        <AccessDenied merchantName={session?.merchant?.name ?? ''} />
      ) : (
        <>
          <h2>{t('home.balances')}</h2>
          <BalancesTable merchantId={session?.merchant?.id} />
        </>
      )}
    </section>
  );
}
