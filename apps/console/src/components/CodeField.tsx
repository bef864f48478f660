import { t } from '../i18n/t';

/** The authenticator's 6-digit code (or a recovery code, where the form accepts one). */
export function CodeField({
  value,
  onChange,
}: {
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {t('twoFactor.code')}
      <input
        name="code"
        autoComplete="one-time-code"
        inputMode="text"
        required
        value={value}
        onChange={(event) => onChange(event.target.value.trim())}
      />
    </label>
  );
}
