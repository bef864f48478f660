import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { ChangeEvent, FormEvent, useRef, useState } from 'react';
import { AccessDenied } from '../../../components/AccessDenied';
import { FieldError, FormError } from '../../../components/FieldError';
import { t } from '../../../i18n/t';
import { can, useSession } from '../../../session';
import { batchFromRecords, batchTemplate, BatchItem, RowError } from './batch-csv';
import { BatchPreview } from './BatchPreview';
import { CsvError, parseCsv } from './csv';
import { createPayoutBatch, rowErrorsOf } from './payout-batches-api';

const TEMPLATE_HREF = `data:text/csv;charset=utf-8,${encodeURIComponent(batchTemplate())}`;

/** One file chosen: its items, the problems found in the browser, and its idempotency key. */
interface Upload {
  fileName: string;
  items: BatchItem[];
  errors: RowError[];
  /** Made once per upload: a double click or a retry with the next code replays one batch. */
  idempotencyKey: string;
}

/**
 * "Upload batch (CSV)": the file is read and checked in the browser, previewed with its totals
 * per currency and network, and sent as one batch with a fresh authentication code. Items the
 * API refuses (422 batch_items_invalid) are shown against their CSV rows; nothing is created.
 */
export function PayoutBatchUploadPage() {
  const { data: session } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [upload, setUpload] = useState<Upload | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [code, setCode] = useState('');
  // Set at once, unlike isPending: both clicks of a double click run before the next render.
  const sending = useRef(false);
  const create = useMutation({
    mutationFn: (current: Upload) => createPayoutBatch(current.items, code, current.idempotencyKey),
    onSettled: () => {
      sending.current = false;
    },
    onSuccess: async (batch) => {
      await queryClient.invalidateQueries({ queryKey: ['payout-batches'] });
      await navigate({ to: '/payouts/batches/$batchId', params: { batchId: batch.id } });
    },
  });
  if (!can(session, 'payouts:write')) {
    return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  }

  const chooseFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    create.reset();
    setUpload(null);
    setFileError(null);
    if (!file) return;
    try {
      const parsed = batchFromRecords(parseCsv(await file.text()));
      setUpload({ fileName: file.name, ...parsed, idempotencyKey: crypto.randomUUID() });
    } catch (error) {
      setFileError(
        error instanceof CsvError
          ? t('payoutBatches.csvError', { message: error.message })
          : String(error),
      );
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!upload || upload.errors.length > 0 || sending.current) return;
    sending.current = true;
    create.mutate(upload);
  };
  const apiRowErrors = rowErrorsOf(create.error);
  const rowErrors = [...(upload?.errors ?? []), ...apiRowErrors];
  const error = apiRowErrors.length > 0 ? null : create.error;

  return (
    <section aria-labelledby="upload-batch-title">
      <p>
        <Link to="/payouts">{t('payouts.back')}</Link>
      </p>
      <h1 id="upload-batch-title">{t('payoutBatches.uploadTitle')}</h1>
      <p>{t('payoutBatches.formatIntro')}</p>
      <ul>
        <li>{t('payoutBatches.formatRequired')}</li>
        <li>{t('payoutBatches.formatOptional')}</li>
        <li>{t('payoutBatches.formatRules')}</li>
      </ul>
      <p>
        <a href={TEMPLATE_HREF} download="payout-batch-template.csv">
          {t('payoutBatches.downloadTemplate')}
        </a>
      </p>
      <form onSubmit={submit}>
        <label>
          {t('payoutBatches.file')}
          <input name="file" type="file" accept=".csv,text/csv" onChange={chooseFile} />
          {fileError && (
            <span className="error" role="alert">
              {fileError}
            </span>
          )}
        </label>
        {upload && (
          <BatchPreview fileName={upload.fileName} items={upload.items} errors={rowErrors} />
        )}
        {upload && upload.errors.length === 0 && (
          <>
            <label>
              {t('payouts.authenticationCode')}
              <input
                name="two_factor_code"
                autoComplete="one-time-code"
                inputMode="numeric"
                required
                value={code}
                onChange={(event) => setCode(event.target.value.trim())}
              />
              <span className="hint">{t('payoutBatches.authenticationCodeHint')}</span>
              <FieldError error={error} field="two_factor_code" />
            </label>
            <FormError error={error} fields={['two_factor_code']} />
            <div className="actions">
              <button type="submit" disabled={create.isPending || apiRowErrors.length > 0}>
                {t('payoutBatches.submit', { count: upload.items.length })}
              </button>
            </div>
          </>
        )}
      </form>
    </section>
  );
}
