import { PasskeyBrowserError } from '../api/passkeys-api';
import { t } from '../i18n/t';
import { ErrorMessage } from './ErrorMessage';

/** A passkey ceremony's failure: the browser's refusal in words, the server's as any error. */
export function PasskeyError({ error }: { error: unknown }) {
  if (error instanceof PasskeyBrowserError) {
    return (
      <p className="error" role="alert">
        {error.message === 'unsupported'
          ? t('passkeys.unsupported')
          : t('passkeys.browserCancelled')}
      </p>
    );
  }
  return <ErrorMessage error={error} />;
}
