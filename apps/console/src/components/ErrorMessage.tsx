import { ApiError } from '../api/http';
import { hasMessage, t } from '../i18n/t';

/** What to tell a person about a failed call, by error code rather than the server's wording. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'rate_limited') {
      const seconds = Number.parseInt(error.retryAfter ?? '', 10);
      return Number.isFinite(seconds)
        ? t('errors.rate_limited', { seconds })
        : t('errors.rate_limited_later');
    }
    const key = `errors.${error.code ?? ''}`;
    if (hasMessage(key)) return t(key);
    return t('errors.generic', { message: error.message });
  }
  if (error instanceof TypeError) return t('errors.network');
  return t('errors.generic', { message: String(error) });
}

export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {describeError(error)}
    </p>
  );
}
