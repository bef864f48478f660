import { ReactNode } from 'react';
import { t } from '../i18n/t';
import { useSession } from '../session';
import { AccessDenied } from './AccessDenied';
import { ErrorMessage } from './ErrorMessage';
import { Pager } from './Pager';
import { usePagedList } from './usePagedList';

/** One column of a list's table; the row header names the row (its id, usually a link). */
export interface ListColumn<T> {
  header: string;
  cell: (item: T) => ReactNode;
  /** Right-aligned, for amounts. */
  amount?: boolean;
  rowHeader?: boolean;
}

/** How the page's items are shown: a table by columns, or what `renderItems` makes of them. */
type ListBody<T> =
  | {
      columns: ReadonlyArray<ListColumn<T>>;
      rowKey: (item: T) => string;
      renderItems?: never;
    }
  | {
      /** The items of the page (never empty), e.g. as an expandable list. */
      renderItems: (items: T[]) => ReactNode;
      columns?: never;
      rowKey?: never;
    };

type ListPageProps<T> = ListBody<T> & {
  /** The id of the heading that names the section. */
  titleId: string;
  title: string;
  /** Whether the member's role reads this list; otherwise the page says so and fetches nothing. */
  allowed: boolean;
  /** A paragraph under the title saying what the list is. */
  intro?: ReactNode;
  /** Buttons above the filters (e.g. "Create payout"). */
  actions?: ReactNode;
  /** The filter fields, in the form that labels them "Filters"; without, no form. */
  filters?: ReactNode;
  list: ReturnType<typeof usePagedList<T>>;
  /** Shown when no item matches the filters. */
  empty: string;
};

/**
 * A list page: title, intro, actions, filters, one page of the list (a table, or the page's own
 * rendering), and the pager. The page owns its filters' state and builds the list's first path
 * from them (usePagedList).
 */
export function ListPage<T>(props: ListPageProps<T>) {
  const { data: session } = useSession();
  if (!props.allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const { query } = props.list;
  const items = query.data?.items;
  return (
    <section aria-labelledby={props.titleId}>
      <h1 id={props.titleId}>{props.title}</h1>
      {props.intro && <p>{props.intro}</p>}
      {props.actions && <p>{props.actions}</p>}
      {props.filters && (
        <form
          className="filters"
          aria-label={t('filters.label')}
          onSubmit={(event) => event.preventDefault()}
        >
          {props.filters}
        </form>
      )}
      {query.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={query.error} />
      {items?.length === 0 && <p>{props.empty}</p>}
      {items &&
        items.length > 0 &&
        (props.renderItems ? (
          props.renderItems(items)
        ) : (
          <ListTable items={items} columns={props.columns} rowKey={props.rowKey} />
        ))}
      <Pager
        pageNumber={props.list.pageNumber}
        hasPrevious={props.list.hasPrevious}
        hasNext={props.list.hasNext}
        onPrevious={props.list.goPrevious}
        onNext={props.list.goNext}
      />
    </section>
  );
}

/** A table of items by columns (also used for short lists inside a detail page). */
export function ListTable<T>(props: {
  items: readonly T[];
  columns: ReadonlyArray<ListColumn<T>>;
  rowKey: (item: T) => string;
}) {
  return (
    <table>
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th key={column.header} scope="col" className={column.amount ? 'amount' : undefined}>
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.items.map((item) => (
          <tr key={props.rowKey(item)}>
            {props.columns.map((column) =>
              column.rowHeader ? (
                <th key={column.header} scope="row">
                  {column.cell(item)}
                </th>
              ) : (
                <td key={column.header} className={column.amount ? 'amount' : undefined}>
                  {column.cell(item)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A select filter whose first choice, "Any", leaves the parameter out. */
export function SelectFilter(props: {
  label: string;
  options: readonly string[];
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(event) => props.onChange(event.target.value)}>
        <option value="">{t('filters.any')}</option>
        {props.options.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A status as the API names it, styled by its value. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`status status-${status.toLowerCase()}`}>{status}</span>;
}
