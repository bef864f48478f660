import { t } from '../i18n/t';

interface PagerProps {
  pageNumber: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
}

export function Pager(props: PagerProps) {
  if (!props.hasPrevious && !props.hasNext) return null;
  return (
    <div className="pager" role="group" aria-label={t('list.pagination')}>
      <button
        type="button"
        className="secondary"
        disabled={!props.hasPrevious}
        onClick={props.onPrevious}
      >
        {t('list.previous')}
      </button>
      <span>{t('list.page', { number: props.pageNumber })}</span>
      <button type="button" className="secondary" disabled={!props.hasNext} onClick={props.onNext}>
        {t('list.next')}
      </button>
    </div>
  );
}
