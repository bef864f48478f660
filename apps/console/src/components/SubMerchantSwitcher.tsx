import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { ConsoleSession } from '../api/console-api';
import { dataOrThrow, v1 } from '../api/v1';
import { t } from '../i18n/t';
import { SESSION_QUERY_KEY } from '../session';
import {
  canActForSubMerchants,
  chooseSubMerchant,
  useSubMerchantCode,
} from '../sub-merchant-context';

export const SUB_MERCHANTS_QUERY_KEY = 'sub-merchants';

/** The merchant's sub-merchants (the first 100, newest first), shared with the switcher. */
export function useSubMerchants(session: ConsoleSession, enabled = true) {
  return useQuery({
    queryKey: [SUB_MERCHANTS_QUERY_KEY, session.merchant?.id],
    queryFn: async () =>
      dataOrThrow(await v1.GET('/v1/sub-merchants', { params: { query: { page_size: 100 } } })),
    enabled: enabled && canActForSubMerchants(session),
    staleTime: 60_000,
  });
}

/**
 * A new context: every cached answer was the other context's. The session and the list of
 * sub-merchants stay; the pages on screen fetch again, now with the new code.
 */
export function useChooseSubMerchant() {
  const queryClient = useQueryClient();
  return useCallback(
    (code: string | null) => {
      chooseSubMerchant(code);
      void queryClient.resetQueries({
        predicate: (query) =>
          query.queryKey[0] !== SESSION_QUERY_KEY[0] &&
          query.queryKey[0] !== SUB_MERCHANTS_QUERY_KEY,
      });
    },
    [queryClient],
  );
}

/** "Acting for": the PSP itself (all of its records) or one sub-merchant; per tab. */
export function SubMerchantSwitcher({ session }: { session: ConsoleSession }) {
  const code = useSubMerchantCode();
  const subMerchants = useSubMerchants(session);
  const choose = useChooseSubMerchant();
  const known = subMerchants.data;
  // A code chosen earlier in this tab that the merchant no longer has: back to the merchant.
  useEffect(() => {
    if (code && known && !known.some((item) => item.code === code)) choose(null);
  }, [code, known, choose]);
  if (!canActForSubMerchants(session)) return null;
  return (
    <label className="merchant-switcher sub-merchant-switcher">
      {t('subMerchantContext.label')}
      <select value={code ?? ''} onChange={(event) => choose(event.target.value || null)}>
        <option value="">{t('subMerchantContext.all')}</option>
        {code && !known?.some((item) => item.code === code) && <option value={code}>{code}</option>}
        {known?.map((item) => (
          <option key={item.code} value={item.code}>
            {item.name} ({item.code})
          </option>
        ))}
      </select>
    </label>
  );
}

/** Shown on every page while the console acts for a sub-merchant. */
export function SubMerchantBanner({ session }: { session: ConsoleSession }) {
  const code = useSubMerchantCode();
  const choose = useChooseSubMerchant();
  if (!code || !canActForSubMerchants(session)) return null;
  return (
    <div
      className="view-as-banner sub-merchant-banner"
      role="region"
      aria-label={t('subMerchantContext.label')}
    >
      <p>{t('subMerchantContext.banner', { code })}</p>
      <button type="button" className="secondary" onClick={() => choose(null)}>
        {t('subMerchantContext.clear')}
      </button>
    </div>
  );
}
