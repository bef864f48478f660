import { useState } from 'react';
import { listPath, PAGE_SIZE } from '../../api/list';
import { ApiEvent, EVENT_TYPES } from '../../api/v1-types';
import { createdRangeQuery, DateRange, DateRangeFilter } from '../../components/DateRangeFilter';
import { EventList } from '../../components/EventDeliveries';
import { ListPage, SelectFilter } from '../../components/ListPage';
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
  return (
    <ListPage
      titleId="events-title"
      title={t('events.title')}
      allowed={allowed}
      filters={
        <>
          <SelectFilter
            label={t('events.type')}
            options={EVENT_TYPES}
            value={type}
            onChange={setType}
          />
          <label>
            {t('events.objectId')}
            <input
              type="search"
              value={objectId}
              onChange={(event) => setObjectId(event.target.value)}
            />
          </label>
          <DateRangeFilter value={range} onChange={setRange} />
        </>
      }
      list={list}
      renderItems={(events) => <EventList events={events} />}
      empty={t('events.empty')}
    />
  );
}
