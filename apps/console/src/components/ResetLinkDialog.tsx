import { useMutation } from '@tanstack/react-query';
import { FormEvent } from 'react';
import { passwordResetApi } from '../api/password-reset-api';
import { formatDateTime } from '../format';
import { t } from '../i18n/t';
import { Dialog } from './Dialog';
import { ErrorMessage } from './ErrorMessage';

/** Settings → Team: a member's password reset link, to hand over (the service sends no e-mail). */
export function ResetLinkDialog(props: {
  member: { user_id: string; email: string };
  onClose: () => void;
}) {
  const issue = useMutation({
    mutationFn: () => passwordResetApi.issueForMember(props.member.user_id),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    issue.mutate();
  };
  return (
    <Dialog title={t('team.resetLinkTitle')} onClose={props.onClose}>
      {issue.data ? (
        <>
          <p>
            {t('team.resetLinkCreated', {
              email: props.member.email,
              date: formatDateTime(issue.data.expires_at),
            })}
          </p>
          <label>
            {t('team.resetLinkUrl')}
            <input
              readOnly
              value={issue.data.reset_url}
              onFocus={(event) => event.target.select()}
            />
          </label>
          <div className="actions">
            <button type="button" onClick={props.onClose}>
              {t('team.close')}
            </button>
          </div>
        </>
      ) : (
        <form onSubmit={submit}>
          <p>{t('team.resetLinkConfirm', { email: props.member.email })}</p>
          <ErrorMessage error={issue.error} />
          <div className="actions">
            <button type="button" className="secondary" onClick={props.onClose}>
              {t('apiKeys.cancel')}
            </button>
            <button type="submit" disabled={issue.isPending}>
              {t('team.resetLinkCreate')}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
