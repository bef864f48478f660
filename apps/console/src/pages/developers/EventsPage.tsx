import { useState } from 'react';
import { listPath, PAGE_SIZE } from '../../api/list';
import { ApiEvent, EVENT_TYPES } from '../../api/v1-types';
import { AccessDenied } from '../../components/AccessDenied';
import { createdRangeQuery, DateRange, DateRangeFilter } from '../../components/DateRangeFilter';
import { ErrorMessage } from '../../components/ErrorMessage';
import { EventList } from '../../components/EventDeliveries';
import { Pager } from '../../components/Pager';
import { usePagedList } from '../../components/usePagedList';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

/** Developers → Events: every event, its deliveries and Resend, filtered by type and day. */
export function EventsPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'events:read');
  const [type, setType] = useState('');
  const [objectId, setObjectId] = useState('');
  const [range, setRange] = useState<DateRange>({ from: '', until: '' });
  const list = usePagedList<ApiEvent>(
    ['events', session?.merchant?.id],
    listPath('/v1/events', {
      page_size: PAGE_SIZE,
      include_sub_merchants: true,
      type: type || undefined,
      object_id: objectId.trim() || undefined,
      ...createdRangeQuery(range),
    }),
    allowed,
  );
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const events = list.query.data?.items;
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">{t('events.title')}</h1>
      <form className="filters" aria-label={t('filters.label')}>
        <label>
          {t('events.type')}
          <select value={type} onChange={(event) => setType(event.target.value)}>
            <option value="">{t('filters.any')}</option>
            {EVENT_TYPES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('events.objectId')}
          <input
            type="search"
            value={objectId}
            onChange={(event) => setObjectId(event.target.value)}
          />
        </label>
        <DateRangeFilter value={range} onChange={setRange} />
      </form>
      {list.query.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={list.query.error} />
      {events?.length === 0 && <p>{t('events.empty')}</p>}
      {events && events.length > 0 && <EventList events={events} />}
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
