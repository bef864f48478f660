import { t } from '../i18n/t';

export function AccessDenied({ merchantName }: { merchantName: string }) {
  return (
    <section aria-labelledby="access-denied">
      <h1 id="access-denied">{t('access.denied')}</h1>
      <p>{t('access.deniedDetail', { merchant: merchantName })}</p>
    </section>
  );
}
