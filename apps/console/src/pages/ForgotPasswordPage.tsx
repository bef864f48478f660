import { Link } from '@tanstack/react-router';
import { realm } from '../base-path';
import { t } from '../i18n/t';

/** The service sends no e-mail: a reset link comes from a person (docs/console.md). */
export function ForgotPasswordPage() {
  return (
    <main className="centered" id="main">
      <div className="card">
        <h1>{t('forgotPassword.title')}</h1>
        <p>{realm === 'operator' ? t('forgotPassword.operator') : t('forgotPassword.merchant')}</p>
        <p>{t('forgotPassword.rules')}</p>
        <Link to="/sign-in">{t('forgotPassword.back')}</Link>
      </div>
    </main>
  );
}
