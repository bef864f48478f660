import { t } from '../i18n/t';
import { useSession } from '../session';
import { AppLayout } from './AppLayout';

/**
 * The merchant console's frame. An operator's session reaches /console too, but acts for no
 * merchant until it views as one: instead of an empty frame (no merchant, no menu), it is sent
 * back to the operator area. A view that expires lands here as well.
 */
export function ConsoleFrame() {
  const session = useSession();
  if (session.data?.realm === 'operator' && !session.data.view_as) return <OperatorWithoutView />;
  return <AppLayout />;
}

function OperatorWithoutView() {
  return (
    <main className="centered" id="main" aria-labelledby="operator-without-view">
      <h1 id="operator-without-view">{t('ops.notInConsoleTitle')}</h1>
      <p>{t('ops.notInConsoleIntro')}</p>
      <p>
        {/* Another app base: a full load of /ops, not a route of this router. */}
        <a href="/ops/merchants">{t('ops.openOperatorArea')}</a>
      </p>
    </main>
  );
}
