import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { FormEvent, useState } from 'react';
import { dataOrThrow, v1 } from '../../api/v1';
import { ApiEvent, EVENT_TYPES, WebhookEndpoint } from '../../api/v1-types';
import { Dialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { EventDeliveries } from '../../components/EventDeliveries';
import { t } from '../../i18n/t';

export const WEBHOOK_ENDPOINTS_QUERY_KEY = ['webhook-endpoints'] as const;

type EventType = (typeof EVENT_TYPES)[number];
// A test event goes to the endpoint tested whatever it subscribes to: nothing to choose.
const SUBSCRIBABLE: readonly EventType[] = EVENT_TYPES.filter(
  (type) => (type as string) !== 'webhook_endpoint.test',
);
export type CreatedEndpoint = WebhookEndpoint & { secret: string };

function useRefreshEndpoints() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: WEBHOOK_ENDPOINTS_QUERY_KEY });
}

function Actions(props: {
  onCancel: () => void;
  submitLabel: string;
  busy: boolean;
  danger?: boolean;
}) {
  return (
    <div className="actions">
      <button type="button" className="secondary" onClick={props.onCancel}>
        {t('webhooks.cancel')}
      </button>
      <button type="submit" className={props.danger ? 'danger' : undefined} disabled={props.busy}>
        {props.submitLabel}
      </button>
    </div>
  );
}

/**
 * Create (no `endpoint`) or edit an endpoint: url, the event types it receives (all, or a
 * chosen few), description and, when editing, whether it is enabled.
 */
export function EndpointFormDialog(props: {
  endpoint?: WebhookEndpoint;
  onClose: () => void;
  onCreated: (created: CreatedEndpoint) => void;
}) {
  const editing = props.endpoint;
  const refresh = useRefreshEndpoints();
  const [url, setUrl] = useState(editing?.url ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [allEvents, setAllEvents] = useState(editing ? editing.events === null : true);
  const [events, setEvents] = useState<EventType[]>(
    (editing?.events ?? []).filter((type): type is EventType =>
      (SUBSCRIBABLE as readonly string[]).includes(type),
    ),
  );
  const [enabled, setEnabled] = useState(editing?.enabled ?? true);
  const [eventsMissing, setEventsMissing] = useState(false);
  const save = useMutation({
    mutationFn: async () => {
      const chosen = allEvents ? null : events;
      if (!editing) {
        return dataOrThrow(
          await v1.POST('/v1/webhook-endpoints', {
            body: {
              url: url.trim(),
              ...(chosen ? { events: chosen } : {}),
              ...(description.trim() ? { description: description.trim() } : {}),
            },
          }),
        );
      }
      return dataOrThrow(
        await v1.PATCH('/v1/webhook-endpoints/{id}', {
          params: { path: { id: editing.id } },
          body: {
            // Sent only when changed: the API checks a new url's address again.
            ...(url.trim() !== editing.url ? { url: url.trim() } : {}),
            events: chosen,
            // The generated type of this nullable string is loose; the API takes a string or null.
            description: (description.trim() || null) as unknown as null,
            ...(enabled !== editing.enabled ? { enabled } : {}),
          },
        }),
      );
    },
    onSuccess: async (saved) => {
      await refresh();
      if ('secret' in saved && typeof saved.secret === 'string') {
        props.onCreated(saved as CreatedEndpoint);
      } else {
        props.onClose();
      }
    },
  });
  const toggle = (type: EventType, checked: boolean) =>
    setEvents((current) => (checked ? [...current, type] : current.filter((e) => e !== type)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const missing = !allEvents && events.length === 0;
    setEventsMissing(missing);
    if (!missing) save.mutate();
  };
  return (
    <Dialog
      title={editing ? t('webhooks.editTitle') : t('webhooks.addTitle')}
      onClose={props.onClose}
    >
      <form onSubmit={submit}>
        <label>
          {t('webhooks.endpointUrl')}
          <input
            type="url"
            required
            maxLength={2048}
            value={url}
            onChange={(event) => setUrl(event.target.value)}
          />
          <span className="hint">{t('webhooks.urlHint')}</span>
        </label>
        <label>
          {t('webhooks.descriptionField')}
          <input
            value={description}
            maxLength={500}
            onChange={(event) => setDescription(event.target.value)}
          />
        </label>
        <fieldset>
          <legend>{t('webhooks.receive')}</legend>
          <label className="checkbox">
            <input
              type="radio"
              name="receive"
              checked={allEvents}
              onChange={() => setAllEvents(true)}
            />
            {t('webhooks.receiveAll')}
          </label>
          <label className="checkbox">
            <input
              type="radio"
              name="receive"
              checked={!allEvents}
              onChange={() => setAllEvents(false)}
            />
            {t('webhooks.receiveSome')}
          </label>
          {!allEvents &&
            SUBSCRIBABLE.map((type) => (
              <label key={type} className="checkbox">
                <input
                  type="checkbox"
                  checked={events.includes(type)}
                  onChange={(event) => toggle(type, event.target.checked)}
                />
                <code>{type}</code>
              </label>
            ))}
          {eventsMissing && (
            <p className="error" role="alert">
              {t('webhooks.eventsRequired')}
            </p>
          )}
        </fieldset>
        {editing && (
          <label className="checkbox">
            <input
              type="checkbox"
              checked={enabled}
              onChange={(event) => setEnabled(event.target.checked)}
            />
            {t('webhooks.enabledField')}
          </label>
        )}
        <ErrorMessage error={save.error} />
        <Actions
          onCancel={props.onClose}
          submitLabel={editing ? t('webhooks.save') : t('webhooks.add')}
          busy={save.isPending}
        />
      </form>
    </Dialog>
  );
}

/** The signing secret, once, as the API keys page shows a new key. */
export function SigningSecretDialog(props: { created: CreatedEndpoint; onClose: () => void }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copySecret = async () => {
    try {
      await navigator.clipboard.writeText(props.created.secret);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  };
  return (
    <Dialog title={t('webhooks.secretTitle')} onClose={props.onClose}>
      <p>{t('webhooks.secretIntro')}</p>
      <label>
        {t('webhooks.secret')}
        <input
          className="secret"
          readOnly
          value={props.created.secret}
          onFocus={(event) => event.target.select()}
        />
      </label>
      <p aria-live="polite" className={copy === 'failed' ? 'error' : 'hint'}>
        {copy === 'copied'
          ? t('webhooks.copied')
          : copy === 'failed'
            ? t('webhooks.copyFailed')
            : ''}
      </p>
      <div className="actions">
        <button type="button" className="secondary" onClick={() => void copySecret()}>
          {t('webhooks.copy')}
        </button>
        <button type="button" onClick={props.onClose}>
          {t('webhooks.done')}
        </button>
      </div>
    </Dialog>
  );
}

export function DeleteEndpointDialog(props: { endpoint: WebhookEndpoint; onClose: () => void }) {
  const refresh = useRefreshEndpoints();
  const remove = useMutation({
    mutationFn: async () => {
      const { error, response } = await v1.DELETE('/v1/webhook-endpoints/{id}', {
        params: { path: { id: props.endpoint.id } },
      });
      // 204: no body, so dataOrThrow's "data present" test does not apply.
      if (!response.ok) dataOrThrow({ error, response });
    },
    onSuccess: async () => {
      await refresh();
      props.onClose();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    remove.mutate();
  };
  return (
    <Dialog title={t('webhooks.deleteTitle')} onClose={props.onClose}>
      <form onSubmit={submit}>
        <p>{t('webhooks.deleteIntro', { url: props.endpoint.url })}</p>
        <ErrorMessage error={remove.error} />
        <Actions
          onCancel={props.onClose}
          submitLabel={t('webhooks.deleteConfirm')}
          busy={remove.isPending}
          danger
        />
      </form>
    </Dialog>
  );
}

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
