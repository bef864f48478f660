import { t } from '../i18n/t';

export interface DateRange {
  from: string;
  until: string;
}

/** The API's created range from two calendar days (UTC), `until` included. */
export function createdRangeQuery(range: DateRange): {
  created_after?: string;
  created_before?: string;
} {
  const startOf = (day: string) => new Date(`${day}T00:00:00Z`);
  const instant = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const query: { created_after?: string; created_before?: string } = {};
  if (range.from) {
    // "Strictly after": one second before midnight so the day's first second is included.
    query.created_after = instant(new Date(startOf(range.from).getTime() - 1000));
  }
  if (range.until) {
    query.created_before = instant(new Date(startOf(range.until).getTime() + 86_400_000));
  }
  return query;
}

export function DateRangeFilter(props: { value: DateRange; onChange: (value: DateRange) => void }) {
  return (
    <>
      <label>
        {t('filters.createdFrom')}
        <input
          type="date"
          value={props.value.from}
          onChange={(event) => props.onChange({ ...props.value, from: event.target.value })}
        />
      </label>
      <label>
        {t('filters.createdUntil')}
        <input
          type="date"
          value={props.value.until}
          onChange={(event) => props.onChange({ ...props.value, until: event.target.value })}
        />
      </label>
    </>
  );
}
