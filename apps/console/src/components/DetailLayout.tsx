import { useQuery, UseQueryResult } from '@tanstack/react-query';
import { Fragment, ReactNode } from 'react';
import { fetchListPage, listPath, PAGE_SIZE } from '../api/list';
import { ApiEvent } from '../api/v1-types';
import { t } from '../i18n/t';
import { can, useSession } from '../session';
import { AccessDenied } from './AccessDenied';
import { ErrorMessage } from './ErrorMessage';
import { EventList } from './EventDeliveries';

interface DetailLayoutProps<T> {
  titleId: string;
  /** The object's kind, before its id in the heading: "Payment cs_…". */
  title: string;
  id: string;
  /** The link back to the list. */
  back: ReactNode;
  allowed: boolean;
  query: UseQueryResult<T>;
  /** What the object shows once loaded: its details, then anything below them. */
  children: (data: T) => ReactNode;
  /** Buttons beside the heading, once loaded. */
  actions?: (data: T) => ReactNode;
}

/**
 * One object's page: the link back, "Kind id" as its heading, its details once loaded, and its
 * events (with every delivery) for members who may read events.
 */
export function DetailLayout<T>(props: DetailLayoutProps<T>) {
  const { data: session } = useSession();
  if (!props.allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const { query } = props;
  return (
    <section aria-labelledby={props.titleId}>
      <p>{props.back}</p>
      <div className="page-header">
        <h1 id={props.titleId}>
          {props.title} <code>{props.id}</code>
        </h1>
        {query.data !== undefined && props.actions?.(query.data)}
      </div>
      {query.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={query.error} />
      {query.data !== undefined && props.children(query.data)}
      <ObjectEvents objectId={props.id} />
    </section>
  );
}

/** A description list of label and value pairs; a null value is shown as "—". */
export function DetailList({ items }: { items: ReadonlyArray<[string, ReactNode]> }) {
  return (
    <dl className="details">
      {items.map(([label, value]) => (
        <Fragment key={label}>
          <dt>{label}</dt>
          <dd>{value ?? t('payments.none')}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/** The events of one object, newest first, each with its deliveries (events:read only). */
export function ObjectEvents({ objectId }: { objectId: string }) {
  const { data: session } = useSession();
  const mayReadEvents = can(session, 'events:read');
  const events = useQuery({
    queryKey: ['object-events', objectId],
    queryFn: () =>
      fetchListPage<ApiEvent>(
        listPath('/v1/events', {
          object_id: objectId,
          page_size: PAGE_SIZE,
          include_sub_merchants: true,
        }),
      ),
    enabled: mayReadEvents,
  });
  if (!mayReadEvents) return null;
  return (
    <>
      <h2>{t('payments.events')}</h2>
      {events.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={events.error} />
      {events.data?.items.length === 0 && <p>{t('payments.noEvents')}</p>}
      {events.data && events.data.items.length > 0 && <EventList events={events.data.items} />}
    </>
  );
}
