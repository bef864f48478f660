import { useMutation, useQueryClient } from '@tanstack/react-query';
import { FormEvent, useState } from 'react';
import { ConsoleSession } from '../../api/console-api';
import { listPath, PAGE_SIZE } from '../../api/list';
import { dataOrThrow, v1 } from '../../api/v1';
import type { components } from '../../api/v1-schema';
import { AccessDenied } from '../../components/AccessDenied';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import {
  SUB_MERCHANTS_QUERY_KEY,
  useChooseSubMerchant,
} from '../../components/SubMerchantSwitcher';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';
import { canActForSubMerchants, useSubMerchantCode } from '../../sub-merchant-context';

type SubMerchant = components['schemas']['SubMerchant'];

/**
 * Sub-merchants (PSP accounts): the list and a create form, through /v1/sub-merchants as the
 * PSP's own code would call it. "Act for" sets the header's sub-merchant context.
 */
export function SubMerchantsPage() {
  const { data: session } = useSession();
  const allowed = canActForSubMerchants(session);
  const list = usePagedList<SubMerchant>(
    [SUB_MERCHANTS_QUERY_KEY, session?.merchant?.id, 'page'],
    listPath('/v1/sub-merchants', { page_size: PAGE_SIZE }),
    allowed,
  );
  const current = useSubMerchantCode();
  const choose = useChooseSubMerchant();
  if (!session || !allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const items = list.query.data?.items;
  return (
    <section aria-labelledby="sub-merchants-title">
      <h1 id="sub-merchants-title">{t('subMerchants.title')}</h1>
      <p>{t('subMerchants.intro')}</p>
      {can(session, 'sub_merchants:write') && <CreateSubMerchantForm session={session} />}
      {list.query.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={list.query.error} />
      {items?.length === 0 && <p>{t('subMerchants.empty')}</p>}
      {items && items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('subMerchants.code')}</th>
              <th scope="col">{t('subMerchants.name')}</th>
              <th scope="col">{t('subMerchants.status')}</th>
              <th scope="col">{t('subMerchants.created')}</th>
              <th scope="col">{t('subMerchantContext.label')}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.code}>
                <th scope="row">
                  <code>{item.code}</code>
                </th>
                <td>{item.name}</td>
                <td>{t(`subMerchants.status.${item.status}`)}</td>
                <td>{formatDateTime(item.created_at)}</td>
                <td>
                  {current !== item.code && (
                    <button type="button" className="secondary" onClick={() => choose(item.code)}>
                      {t('subMerchants.actAs', { code: item.code })}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
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

/** One idempotency key per form: a double click or a retry creates one sub-merchant. */
function CreateSubMerchantForm({ session }: { session: ConsoleSession }) {
  const queryClient = useQueryClient();
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [website, setWebsite] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async () =>
      dataOrThrow(
        await v1.POST('/v1/sub-merchants', {
          params: { header: { 'Idempotency-Key': idempotencyKey } },
          body: {
            code: code.trim(),
            name: name.trim(),
            status: 'active',
            ...(email.trim() ? { email: email.trim() } : {}),
            ...(website.trim() ? { website: website.trim() } : {}),
          },
        }),
      ),
    onSuccess: async (subMerchant) => {
      setCreated(subMerchant.code);
      setCode('');
      setName('');
      setEmail('');
      setWebsite('');
      setIdempotencyKey(crypto.randomUUID());
      await queryClient.invalidateQueries({
        queryKey: [SUB_MERCHANTS_QUERY_KEY, session.merchant?.id],
      });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCreated(null);
    if (!create.isPending) create.mutate();
  };
  return (
    <form onSubmit={submit} aria-labelledby="create-sub-merchant-title">
      <h2 id="create-sub-merchant-title">{t('subMerchants.createTitle')}</h2>
      <label>
        {t('subMerchants.code')}
        <input
          name="code"
          required
          maxLength={64}
          pattern="[A-Za-z0-9_\-]{1,64}"
          aria-describedby="sub-merchant-code-hint"
          value={code}
          onChange={(event) => setCode(event.target.value)}
        />
      </label>
      <p className="hint" id="sub-merchant-code-hint">
        {t('subMerchants.codeHint')}
      </p>
      <label>
        {t('subMerchants.name')}
        <input
          name="name"
          required
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
      </label>
      <label>
        {t('subMerchants.email')}
        <input
          type="email"
          name="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
      </label>
      <label>
        {t('subMerchants.website')}
        <input
          type="url"
          name="website"
          value={website}
          onChange={(event) => setWebsite(event.target.value)}
        />
      </label>
      <ErrorMessage error={create.error} />
      {created && <p role="status">{t('subMerchants.createdNotice', { code: created })}</p>}
      <button type="submit" disabled={create.isPending}>
        {t('subMerchants.create')}
      </button>
    </form>
  );
}
