import { useMutation } from '@tanstack/react-query';
import { ConsoleSession } from '../api/console-api';
import { opsApi } from '../api/ops-api';
import { formatDateTime } from '../format';
import { t } from '../i18n/t';
import { ErrorMessage } from './ErrorMessage';

/** Shown on every page while an operator views the console as this merchant (read-only). */
export function ViewAsBanner({ session }: { session: ConsoleSession }) {
  const end = useMutation({
    mutationFn: opsApi.endViewAs,
    onSuccess: () => window.location.assign('/ops/merchants'),
  });
  if (!session.view_as) return null;
  return (
    <div className="view-as-banner" role="region" aria-label={t('viewAs.label')}>
      <p>
        {t('viewAs.banner', {
          operator: session.view_as.operator_email,
          merchant: session.merchant?.name ?? '',
          date: formatDateTime(session.view_as.expires_at),
        })}
      </p>
      <p>{t('viewAs.reason', { reason: session.view_as.reason })}</p>
      <ErrorMessage error={end.error} />
      <button
        type="button"
        className="secondary"
        disabled={end.isPending}
        onClick={() => end.mutate()}
      >
        {t('viewAs.end')}
      </button>
    </div>
  );
}
