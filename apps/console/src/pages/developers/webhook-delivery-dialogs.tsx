import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { FormEvent, useState } from 'react';
import { dataOrThrow, v1 } from '../../api/v1';
import { ApiEvent, WebhookEndpoint } from '../../api/v1-types';
import { Dialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { EventDeliveries } from '../../components/EventDeliveries';
import { t } from '../../i18n/t';

/*
 * The dialogs about an endpoint's deliveries, re-exported by webhook-endpoint-dialogs.tsx: a test
 * event and its delivery as it settles, and one more attempt for the deliveries that failed.
 */

/** Sends a test event to one endpoint (the page's "Send test event"). */
export function useSendTestEvent() {
  return useMutation({
    mutationFn: async (endpoint: WebhookEndpoint): Promise<ApiEvent> =>
      dataOrThrow(
        await v1.POST('/v1/webhook-endpoints/{id}/test', {
          params: { path: { id: endpoint.id } },
        }),
      ),
  });
}

/**
 * The test event just sent, then its delivery with every attempt (EventDeliveries), asked again
 * every 2 s until the delivery has an attempt.
 */
export function TestEventDialog(props: {
  endpoint: WebhookEndpoint;
  sending: ReturnType<typeof useSendTestEvent>;
  onClose: () => void;
}) {
  const { sending } = props;
  return (
    <Dialog title={t('webhooks.testTitle')} onClose={props.onClose}>
      {sending.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={sending.error} />
      {sending.data && (
        <>
          <p role="status">
            {t('webhooks.testSent', { id: sending.data.id, url: props.endpoint.url })}
          </p>
          <SettlingDeliveries event={sending.data} />
        </>
      )}
      <div className="actions">
        <button type="button" onClick={props.onClose}>
          {t('webhooks.close')}
        </button>
      </div>
    </Dialog>
  );
}

function SettlingDeliveries({ event }: { event: ApiEvent }) {
  // The same query EventDeliveries reads: polling it here refreshes what that shows.
  useQuery({
    queryKey: ['event-deliveries', event.id],
    queryFn: async () =>
      dataOrThrow(
        await v1.GET('/v1/events/{id}/deliveries', { params: { path: { id: event.id } } }),
      ),
    refetchInterval: (query) => {
      const deliveries = query.state.data;
      const settled =
        deliveries && deliveries.length > 0 && deliveries.every((d) => d.attempts.length > 0);
      return settled ? false : 2_000;
    },
  });
  return <EventDeliveries event={event} />;
}

/** A datetime-local value (the browser's local time, to the minute) for an instant. */
function localDateTimeValue(instant: Date): string {
  const local = new Date(instant.getTime() - instant.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/**
 * "Redeliver failed events": one more attempt now for every delivery to the endpoint that failed
 * for good, of events created since the chosen time (POST /v1/webhook-endpoints/{id}/recover);
 * says how many were queued.
 */
export function RedeliverDialog(props: { endpoint: WebhookEndpoint; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [since, setSince] = useState(() => localDateTimeValue(new Date(Date.now() - 86_400_000)));
  const recover = useMutation({
    mutationFn: async () =>
      dataOrThrow(
        await v1.POST('/v1/webhook-endpoints/{id}/recover', {
          params: { path: { id: props.endpoint.id } },
          // The local time typed, as the instant it names (RFC 3339 in UTC).
          body: { since: new Date(since).toISOString() },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['event-deliveries'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!recover.isPending) recover.mutate();
  };
  return (
    <Dialog title={t('webhooks.redeliverTitle')} onClose={props.onClose}>
      <form onSubmit={submit}>
        <p>{t('webhooks.redeliverIntro', { url: props.endpoint.url })}</p>
        <label>
          {t('webhooks.redeliverSince')}
          <input
            type="datetime-local"
            required
            value={since}
            aria-describedby="redeliver-since-hint"
            onChange={(event) => setSince(event.target.value)}
          />
        </label>
        <p className="hint" id="redeliver-since-hint">
          {t('webhooks.redeliverSinceHint')}
        </p>
        <ErrorMessage error={recover.error} />
        {recover.data && (
          <p role="status">{t('webhooks.redeliverQueued', { count: recover.data.scheduled })}</p>
        )}
        <div className="actions">
          <button type="button" className="secondary" onClick={props.onClose}>
            {t('webhooks.close')}
          </button>
          <button type="submit" disabled={recover.isPending}>
            {t('webhooks.redeliverConfirm')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
