import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { FormEvent, useState } from 'react';
import { consoleApi, TwoFactorEnrolment } from '../api/console-api';
import { t } from '../i18n/t';
import { reloadSession } from '../session';
import { CodeField } from './CodeField';
import { ErrorMessage } from './ErrorMessage';

/*
 * Enrolling TOTP, after accepting an invitation or at a sign-in of an account that has none yet:
 * the secret (QR code and text), the first code, then the ten recovery codes shown once.
 */

/** The server's SVG as an image: never markup in the page (strict CSP, no HTML injection). */
function svgDataUrl(svg: string): string {
  if (svg.startsWith('data:')) return svg;
  const bytes = new TextEncoder().encode(svg);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `data:image/svg+xml;base64,${btoa(binary)}`;
}

export function EnrolTwoFactor(props: {
  enrolment: TwoFactorEnrolment;
  onEnrolled: (codes: string[]) => void;
}) {
  const [code, setCode] = useState('');
  const enrol = useMutation({
    mutationFn: () => consoleApi.enrolTwoFactor(code),
    onSuccess: (result) => props.onEnrolled(result.recovery_codes),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    enrol.mutate();
  };
  return (
    <form onSubmit={submit}>
      <h1>{t('invitation.enrolTitle')}</h1>
      <p>{t('invitation.enrolIntro')}</p>
      <img
        className="qr"
        src={svgDataUrl(props.enrolment.qr_svg)}
        alt={t('invitation.qrAlt')}
        width={200}
        height={200}
      />
      <p>
        {t('invitation.secret')}: <code className="secret">{props.enrolment.secret}</code>
      </p>
      <CodeField value={code} onChange={setCode} />
      <ErrorMessage error={enrol.error} />
      <button type="submit" disabled={enrol.isPending}>
        {t('twoFactor.submit')}
      </button>
    </form>
  );
}

export function RecoveryCodes({ codes }: { codes: string[] }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const proceed = async () => {
    await reloadSession(queryClient);
    await navigate({ to: '/' });
  };
  return (
    <>
      <h1>{t('invitation.recoveryTitle')}</h1>
      <p>{t('invitation.recoveryIntro')}</p>
      <ul className="recovery-codes" aria-label={t('invitation.recoveryTitle')}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <button type="button" onClick={() => void proceed()}>
        {t('invitation.continue')}
      </button>
    </>
  );
}
