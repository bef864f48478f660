import { listPath, PAGE_SIZE } from '../../api/list';
import { WebhookEndpoint } from '../../api/v1-types';
import { AccessDenied } from '../../components/AccessDenied';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

/** Developers → Webhooks: the merchant's endpoints and whether each is receiving. */
export function WebhooksPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'webhook_endpoints:read');
  const list = usePagedList<WebhookEndpoint>(
    ['webhook-endpoints', session?.merchant?.id],
    listPath('/v1/webhook-endpoints', { page_size: PAGE_SIZE, include_sub_merchants: true }),
    allowed,
  );
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const endpoints = list.query.data?.items;
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">{t('webhooks.title')}</h1>
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
