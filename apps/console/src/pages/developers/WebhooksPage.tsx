import { useState } from 'react';
import { listPath, PAGE_SIZE } from '../../api/list';
import { WebhookEndpoint } from '../../api/v1-types';
import { AccessDenied } from '../../components/AccessDenied';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';
import {
  CreatedEndpoint,
  DeleteEndpointDialog,
  EndpointFormDialog,
  RedeliverDialog,
  RotateSecretDialog,
  SigningSecretDialog,
  TestEventDialog,
  useSendTestEvent,
  WEBHOOK_ENDPOINTS_QUERY_KEY,
} from './webhook-endpoint-dialogs';

type OpenDialog =
  | { kind: 'create' }
  | { kind: 'edit'; endpoint: WebhookEndpoint }
  | { kind: 'delete'; endpoint: WebhookEndpoint }
  | { kind: 'test'; endpoint: WebhookEndpoint }
  | { kind: 'secret'; created: CreatedEndpoint; rotated?: boolean }
  | { kind: 'rotate'; endpoint: WebhookEndpoint }
  | { kind: 'redeliver'; endpoint: WebhookEndpoint }
  | null;

/**
 * Developers → Webhooks: the merchant's endpoints and whether each is receiving; with
 * webhook_endpoints:write, add (the signing secret shown once), edit, delete, send a test event
 * and rotate the secret (the new one shown once); "Redeliver failed events" as the API allows it,
 * with webhook_endpoints:write or webhook_deliveries:resend (support resends deliveries too).
 */
export function WebhooksPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'webhook_endpoints:read');
  const mayWrite = can(session, 'webhook_endpoints:write');
  const mayRedeliver = mayWrite || can(session, 'webhook_deliveries:resend');
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const sendTest = useSendTestEvent();
  const list = usePagedList<WebhookEndpoint>(
    [...WEBHOOK_ENDPOINTS_QUERY_KEY, session?.merchant?.id],
    listPath('/v1/webhook-endpoints', { page_size: PAGE_SIZE, include_sub_merchants: true }),
    allowed,
  );
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const endpoints = list.query.data?.items;
  const close = () => setDialog(null);
  const test = (endpoint: WebhookEndpoint) => {
    sendTest.reset();
    sendTest.mutate(endpoint);
    setDialog({ kind: 'test', endpoint });
  };
  return (
    <section aria-labelledby="webhooks-title">
      <div className="page-header">
        <h1 id="webhooks-title">{t('webhooks.title')}</h1>
        {mayWrite && (
          <button type="button" onClick={() => setDialog({ kind: 'create' })}>
            {t('webhooks.add')}
          </button>
        )}
      </div>
      <p>{t('webhooks.intro')}</p>
      {list.query.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={list.query.error} />
      {endpoints?.length === 0 && <p>{t('webhooks.empty')}</p>}
      {endpoints && endpoints.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('webhooks.url')}</th>
              <th scope="col">{t('webhooks.state')}</th>
              <th scope="col">{t('webhooks.events')}</th>
              <th scope="col">{t('webhooks.lastSuccess')}</th>
              <th scope="col">{t('webhooks.created')}</th>
              {mayRedeliver && <th scope="col">{t('webhooks.actions')}</th>}
            </tr>
          </thead>
          <tbody>
            {endpoints.map((endpoint) => (
              <tr key={endpoint.id}>
                <th scope="row">
                  <code className="hash">{endpoint.url}</code>
                  {endpoint.description && <div>{endpoint.description}</div>}
                </th>
                <td>{endpointState(endpoint)}</td>
                <td>
                  {endpoint.events === null ? (
                    t('webhooks.allEvents')
                  ) : (
                    <ul className="scopes">
                      {endpoint.events.map((type) => (
                        <li key={type}>
                          <code>{type}</code>
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td>
                  {endpoint.last_success_at
                    ? formatDateTime(endpoint.last_success_at)
                    : t('webhooks.never')}
                </td>
                <td>{formatDateTime(endpoint.created_at)}</td>
                {mayRedeliver && (
                  <td>
                    <div className="actions">
                      {mayWrite && (
                        <>
                          <button
                            type="button"
                            className="secondary"
                            disabled={!endpoint.enabled}
                            aria-label={t('webhooks.sendTestNamed', { url: endpoint.url })}
                            onClick={() => test(endpoint)}
                          >
                            {t('webhooks.sendTest')}
                          </button>
                          <button
                            type="button"
                            className="secondary"
                            aria-label={t('webhooks.editNamed', { url: endpoint.url })}
                            onClick={() => setDialog({ kind: 'edit', endpoint })}
                          >
                            {t('webhooks.edit')}
                          </button>
                          <button
                            type="button"
                            className="secondary"
                            aria-label={t('webhooks.deleteNamed', { url: endpoint.url })}
                            onClick={() => setDialog({ kind: 'delete', endpoint })}
                          >
                            {t('webhooks.delete')}
                          </button>
                          <button
                            type="button"
                            className="secondary"
                            aria-label={t('webhooks.rotateNamed', { url: endpoint.url })}
                            onClick={() => setDialog({ kind: 'rotate', endpoint })}
                          >
                            {t('webhooks.rotate')}
                          </button>
                        </>
                      )}
                      <button
                        type="button"
                        className="secondary"
                        disabled={!endpoint.enabled}
                        aria-label={t('webhooks.redeliverNamed', { url: endpoint.url })}
                        onClick={() => setDialog({ kind: 'redeliver', endpoint })}
                      >
                        {t('webhooks.redeliver')}
                      </button>
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        pageNumber={list.pageNumber}
        hasPrevious={list.hasPrevious}
        hasNext={list.hasNext}
        onPrevious={list.goPrevious}
        onNext={list.goNext}
      />
      {(dialog?.kind === 'create' || dialog?.kind === 'edit') && (
        <EndpointFormDialog
          endpoint={dialog.kind === 'edit' ? dialog.endpoint : undefined}
          onClose={close}
          onCreated={(created) => setDialog({ kind: 'secret', created })}
        />
      )}
      {dialog?.kind === 'secret' && (
        <SigningSecretDialog created={dialog.created} rotated={dialog.rotated} onClose={close} />
      )}
      {dialog?.kind === 'rotate' && (
        <RotateSecretDialog
          endpoint={dialog.endpoint}
          onClose={close}
          onRotated={(created) => setDialog({ kind: 'secret', created, rotated: true })}
        />
      )}
      {dialog?.kind === 'redeliver' && (
        <RedeliverDialog endpoint={dialog.endpoint} onClose={close} />
      )}
      {dialog?.kind === 'delete' && (
        <DeleteEndpointDialog endpoint={dialog.endpoint} onClose={close} />
      )}
      {dialog?.kind === 'test' && (
        <TestEventDialog endpoint={dialog.endpoint} sending={sendTest} onClose={close} />
      )}
    </section>
  );
}

function endpointState(endpoint: WebhookEndpoint): string {
  if (!endpoint.enabled) {
    return t('webhooks.disabled', { reason: endpoint.disabled_reason ?? '' });
  }
  if (endpoint.failing_since) {
    return t('webhooks.failing', { date: formatDateTime(endpoint.failing_since) });
  }
  return t('webhooks.enabled');
}
