import { useMutation, useQueryClient } from '@tanstack/react-query';
import { FormEvent, useState } from 'react';
import { dataOrThrow, v1 } from '../../api/v1';
import { EVENT_TYPES, WebhookEndpoint } from '../../api/v1-types';
import { Dialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';

export { RedeliverDialog, TestEventDialog, useSendTestEvent } from './webhook-delivery-dialogs';

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

/**
 * The signing secret, once, as the API keys page shows a new key. After a rotation (`rotated`) it
 * also says what became of the previous secret: signing beside the new one until its expiry, or
 * no longer.
 */
export function SigningSecretDialog(props: {
  created: CreatedEndpoint;
  rotated?: boolean;
  onClose: () => void;
}) {
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
      {props.rotated && (
        <p>
          {props.created.previous_secret_expires_at
            ? t('webhooks.previousSecretUntil', {
                date: formatDateTime(props.created.previous_secret_expires_at),
              })
            : t('webhooks.previousSecretStopped')}
        </p>
      )}
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

/** The grace periods offered (hours), the API's default (24) first chosen. */
const GRACE_HOURS = [0, 1, 24, 168] as const;

/**
 * "Rotate secret": how long the previous secret keeps signing beside the new one, then
 * POST /v1/webhook-endpoints/{id}/rotate-secret; the new secret goes to SigningSecretDialog.
 */
export function RotateSecretDialog(props: {
  endpoint: WebhookEndpoint;
  onClose: () => void;
  onRotated: (rotated: CreatedEndpoint) => void;
}) {
  const refresh = useRefreshEndpoints();
  const [graceHours, setGraceHours] = useState<(typeof GRACE_HOURS)[number]>(24);
  const rotate = useMutation({
    mutationFn: async () =>
      dataOrThrow(
        await v1.POST('/v1/webhook-endpoints/{id}/rotate-secret', {
          params: { path: { id: props.endpoint.id } },
          body: { grace_period_hours: graceHours },
        }),
      ),
    onSuccess: async (rotated) => {
      await refresh();
      props.onRotated(rotated as CreatedEndpoint);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!rotate.isPending) rotate.mutate();
  };
  return (
    <Dialog title={t('webhooks.rotateTitle')} onClose={props.onClose}>
      <form onSubmit={submit}>
        <p>{t('webhooks.rotateIntro', { url: props.endpoint.url })}</p>
        <label>
          {t('webhooks.rotateGrace')}
          <select
            value={graceHours}
            onChange={(event) =>
              setGraceHours(Number(event.target.value) as (typeof GRACE_HOURS)[number])
            }
          >
            {GRACE_HOURS.map((hours) => (
              <option key={hours} value={hours}>
                {t(`webhooks.rotateGrace.${hours}`)}
              </option>
            ))}
          </select>
        </label>
        <ErrorMessage error={rotate.error} />
        <Actions
          onCancel={props.onClose}
          submitLabel={t('webhooks.rotateConfirm')}
          busy={rotate.isPending}
        />
      </form>
    </Dialog>
  );
}
