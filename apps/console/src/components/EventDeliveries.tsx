import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dataOrThrow, v1 } from '../api/v1';
import { ApiEvent, WebhookDelivery } from '../api/v1-types';
import { formatDateTime } from '../format';
import { t } from '../i18n/t';
import { can, useSession } from '../session';
import { ErrorMessage } from './ErrorMessage';

const deliveriesKey = (eventId: string) => ['event-deliveries', eventId] as const;

/** An event's deliveries, one per endpoint, with every attempt; "Resend" when allowed. */
export function EventDeliveries({ event }: { event: ApiEvent }) {
  const { data: session } = useSession();
  const queryClient = useQueryClient();
  const mayResend =
    can(session, 'webhook_endpoints:write') || can(session, 'webhook_deliveries:resend');
  const deliveries = useQuery({
    queryKey: deliveriesKey(event.id),
    queryFn: async () =>
      dataOrThrow(
        await v1.GET('/v1/events/{id}/deliveries', { params: { path: { id: event.id } } }),
      ),
  });
  const resend = useMutation({
    mutationFn: async () =>
      dataOrThrow(
        await v1.POST('/v1/events/{id}/resend', {
          params: { path: { id: event.id } },
          body: {},
        }),
      ),
    onSuccess: (resent) => queryClient.setQueryData(deliveriesKey(event.id), resent),
  });
  return (
    <div className="deliveries">
      <div className="page-header">
        <h3>{t('events.deliveries')}</h3>
        {mayResend && (
          <button
            type="button"
            className="secondary"
            disabled={resend.isPending}
            aria-label={t('events.resendNamed', { id: event.id })}
            onClick={() => resend.mutate()}
          >
            {t('events.resend')}
          </button>
        )}
      </div>
      {resend.isSuccess && <p role="status">{t('events.resent')}</p>}
      <ErrorMessage error={resend.error} />
      {deliveries.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={deliveries.error} />
      {deliveries.data?.length === 0 && <p>{t('events.noDeliveries')}</p>}
      {deliveries.data?.map((delivery) => (
        <DeliveryAttempts key={delivery.webhook_endpoint_id} delivery={delivery} />
      ))}
    </div>
  );
}

function DeliveryAttempts({ delivery }: { delivery: WebhookDelivery }) {
  return (
    <table>
      <caption>
        {t('events.deliveryCaption', {
          url: delivery.url,
          status: delivery.status,
          count: delivery.attempt_count,
        })}
      </caption>
      <thead>
        <tr>
          <th scope="col">{t('events.attemptedAt')}</th>
          <th scope="col">{t('events.httpStatus')}</th>
          <th scope="col">{t('events.latency')}</th>
          <th scope="col">{t('events.response')}</th>
        </tr>
      </thead>
      <tbody>
        {delivery.attempts.length === 0 && (
          <tr>
            <td colSpan={4}>
              {delivery.next_attempt_at
                ? t('events.nextAttempt', { date: formatDateTime(delivery.next_attempt_at) })
                : t('events.noAttempts')}
            </td>
          </tr>
        )}
        {delivery.attempts.map((attempt) => (
          <tr key={attempt.attempted_at}>
            <td>{formatDateTime(attempt.attempted_at)}</td>
            <td>{attempt.status_code ?? t('events.noResponse')}</td>
            <td>{t('events.milliseconds', { ms: attempt.latency_ms })}</td>
            <td>
              <code>{attempt.error ?? attempt.response_excerpt ?? ''}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Events, newest first, each with its deliveries behind a disclosure. */
export function EventList({ events }: { events: ApiEvent[] }) {
  return (
    <ul className="events">
      {events.map((event) => (
        <li key={event.id}>
          <details>
            <summary>
              <code>{event.type}</code> · {formatDateTime(event.created_at)} ·{' '}
              <code>{event.id}</code>
            </summary>
            <EventDeliveries event={event} />
          </details>
        </li>
      ))}
    </ul>
  );
}
