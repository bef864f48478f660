import { Link } from '@tanstack/react-router';
import type { components } from '../../api/v1-schema';
import { ListColumn, StatusBadge } from '../../components/ListPage';
import { formatDateTime, groupDigits } from '../../format';
import { hasMessage, t } from '../../i18n/t';

export type UnmatchedTransfer = components['schemas']['UnmatchedTransfer'];

/** The reasons a merchant sees (`unknown_address` has no merchant), for the list's filter. */
export const UNMATCHED_REASONS = [
  'wrong_network',
  'wrong_token',
  'session_already_paid',
  'session_refunded',
] as const;
export const UNMATCHED_STATUSES = ['detected', 'reverted'] as const;

export function reasonLabel(reason: string): string {
  const key = `unmatched.reason.${reason}`;
  return hasMessage(key) ? t(key) : reason;
}

/**
 * "Refund" on a transfer still on the chain, for members who may refund: the console's form,
 * which asks for the address and a fresh code. The API refuses what the list cannot tell (not
 * confirmed yet, refunded already) with its own message on the form.
 */
export function RefundTransferAction({
  transfer,
  allowed,
}: {
  transfer: UnmatchedTransfer;
  allowed: boolean;
}) {
  if (!allowed || transfer.status !== 'detected') return null;
  return (
    <Link
      to="/payments/unmatched/$transferId/refund"
      params={{ transferId: transfer.id }}
      aria-label={t('unmatched.refundNamed', { id: transfer.id })}
    >
      {t('unmatched.refund')}
    </Link>
  );
}

/** The columns of unmatched transfers; `withPayment` adds the payment whose address got it. */
export function unmatchedTransferColumns(options: {
  withPayment: boolean;
  canRefund: boolean;
}): ReadonlyArray<ListColumn<UnmatchedTransfer>> {
  return [
    { header: t('unmatched.id'), rowHeader: true, cell: (item) => <code>{item.id}</code> },
    ...(options.withPayment
      ? [
          {
            header: t('unmatched.payment'),
            cell: (item: UnmatchedTransfer) => (
              <Link to="/payments/$sessionId" params={{ sessionId: item.session_id }}>
                <code>{item.session_id}</code>
              </Link>
            ),
          },
        ]
      : []),
    { header: t('unmatched.reason'), cell: (item) => reasonLabel(item.reason) },
    { header: t('unmatched.status'), cell: (item) => <StatusBadge status={item.status} /> },
    {
      header: t('unmatched.amount'),
      amount: true,
      cell: (item) => `${groupDigits(item.amount)} ${item.currency}`,
    },
    { header: t('unmatched.network'), cell: (item) => item.network },
    { header: t('unmatched.from'), cell: (item) => <code>{item.from_address}</code> },
    { header: t('unmatched.txHash'), cell: (item) => <code className="hash">{item.tx_hash}</code> },
    { header: t('unmatched.seen'), cell: (item) => formatDateTime(item.created_at) },
    ...(options.canRefund
      ? [
          {
            header: t('unmatched.actions'),
            cell: (item: UnmatchedTransfer) => (
              <RefundTransferAction transfer={item} allowed={options.canRefund} />
            ),
          },
        ]
      : []),
  ];
}
