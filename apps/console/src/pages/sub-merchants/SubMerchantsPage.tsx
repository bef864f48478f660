import { useMutation, useQueryClient } from '@tanstack/react-query';
import { FormEvent, useState } from 'react';
import { ConsoleSession } from '../../api/console-api';
import { listPath, PAGE_SIZE } from '../../api/list';
import { dataOrThrow, v1 } from '../../api/v1';
import type { components } from '../../api/v1-schema';
import { AccessDenied } from '../../components/AccessDenied';
import { Dialog } from '../../components/Dialog';
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

type OpenDialog =
  { kind: 'edit'; subMerchant: SubMerchant } | { kind: 'disable'; subMerchant: SubMerchant } | null;

/**
 * Sub-merchants (PSP accounts): the list and a create form, through /v1/sub-merchants as the
 * PSP's own code would call it. "Act for" sets the header's sub-merchant context. With
 * sub_merchants:write, each row is edited (name, email, website) and disabled or enabled again
 * through PATCH /v1/sub-merchants/{code}.
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
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const setStatus = useUpdateSubMerchant(session);
  if (!session || !allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const items = list.query.data?.items;
  const mayWrite = can(session, 'sub_merchants:write');
  const close = () => setDialog(null);
  const enable = (subMerchant: SubMerchant) => {
    setNotice(null);
    setStatus.mutate(
      { code: subMerchant.code, changes: { status: 'active' } },
      { onSuccess: () => setNotice(t('subMerchants.enabledNotice', { code: subMerchant.code })) },
    );
  };
  return (
    <section aria-labelledby="sub-merchants-title">
      <h1 id="sub-merchants-title">{t('subMerchants.title')}</h1>
      <p>{t('subMerchants.intro')}</p>
      {mayWrite && <CreateSubMerchantForm session={session} />}
      {list.query.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={list.query.error} />
      <ErrorMessage error={setStatus.error} />
      {notice && <p role="status">{notice}</p>}
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
              {mayWrite && <th scope="col">{t('subMerchants.actions')}</th>}
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
                {mayWrite && (
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        className="secondary"
                        aria-label={t('subMerchants.editNamed', { code: item.code })}
                        onClick={() => {
                          setNotice(null);
                          setDialog({ kind: 'edit', subMerchant: item });
                        }}
                      >
                        {t('subMerchants.edit')}
                      </button>
                      {item.status === 'active' ? (
                        <button
                          type="button"
                          className="secondary"
                          aria-label={t('subMerchants.disableNamed', { code: item.code })}
                          onClick={() => {
                            setNotice(null);
                            setDialog({ kind: 'disable', subMerchant: item });
                          }}
                        >
                          {t('subMerchants.disable')}
                        </button>
                      ) : (
                        <button
                          type="button"
                          className="secondary"
                          disabled={setStatus.isPending}
                          aria-label={t('subMerchants.enableNamed', { code: item.code })}
                          onClick={() => enable(item)}
                        >
                          {t('subMerchants.enable')}
                        </button>
                      )}
                    </div>
                  </td>
                )}
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
      {dialog?.kind === 'edit' && (
        <EditSubMerchantDialog
          session={session}
          subMerchant={dialog.subMerchant}
          onClose={close}
          onSaved={(code) => {
            setNotice(t('subMerchants.savedNotice', { code }));
            close();
          }}
        />
      )}
      {dialog?.kind === 'disable' && (
        <DisableSubMerchantDialog
          session={session}
          subMerchant={dialog.subMerchant}
          onClose={close}
          onDisabled={(code) => {
            setNotice(t('subMerchants.disabledNotice', { code }));
            close();
          }}
        />
      )}
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

type SubMerchantChanges = components['schemas']['UpdateSubMerchantRequest'];

/** PATCH /v1/sub-merchants/{code}, then the lists (this page's and the switcher's) read again. */
function useUpdateSubMerchant(session: ConsoleSession | null | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { code: string; changes: SubMerchantChanges }) =>
      dataOrThrow(
        await v1.PATCH('/v1/sub-merchants/{code}', {
          params: { path: { code: input.code } },
          body: input.changes,
        }),
      ),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: [SUB_MERCHANTS_QUERY_KEY, session?.merchant?.id] }),
  });
}

/** Name, email and website; an emptied optional field is cleared (null). The code never changes. */
function EditSubMerchantDialog(props: {
  session: ConsoleSession;
  subMerchant: SubMerchant;
  onClose: () => void;
  onSaved: (code: string) => void;
}) {
  const { subMerchant } = props;
  const update = useUpdateSubMerchant(props.session);
  const [name, setName] = useState(subMerchant.name);
  const [email, setEmail] = useState(subMerchant.email ?? '');
  const [website, setWebsite] = useState(subMerchant.website ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (update.isPending) return;
    // Only what changed: an untouched field is left as the API has it.
    const changes: SubMerchantChanges = {};
    if (name.trim() !== subMerchant.name) changes.name = name.trim();
    if ((email.trim() || null) !== subMerchant.email) changes.email = email.trim() || null;
    if ((website.trim() || null) !== subMerchant.website) changes.website = website.trim() || null;
    update.mutate(
      { code: subMerchant.code, changes },
      { onSuccess: (saved) => props.onSaved(saved.code) },
    );
  };
  return (
    <Dialog title={t('subMerchants.editTitle', { code: subMerchant.code })} onClose={props.onClose}>
      <form onSubmit={submit}>
        <label>
          {t('subMerchants.name')}
          <input
            name="name"
            required
            maxLength={200}
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </label>
        <label>
          {t('subMerchants.email')}
          <input
            type="email"
            name="email"
            maxLength={254}
            aria-describedby="edit-sub-merchant-clear-hint"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </label>
        <label>
          {t('subMerchants.website')}
          <input
            type="url"
            name="website"
            maxLength={2048}
            aria-describedby="edit-sub-merchant-clear-hint"
            value={website}
            onChange={(event) => setWebsite(event.target.value)}
          />
        </label>
        <p className="hint" id="edit-sub-merchant-clear-hint">
          {t('subMerchants.clearHint')}
        </p>
        <ErrorMessage error={update.error} />
        <div className="actions">
          <button type="button" className="secondary" onClick={props.onClose}>
            {t('subMerchants.cancel')}
          </button>
          <button type="submit" disabled={update.isPending}>
            {t('subMerchants.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Disabling asks first: the sub-merchant gets no new sessions or payouts until enabled. */
function DisableSubMerchantDialog(props: {
  session: ConsoleSession;
  subMerchant: SubMerchant;
  onClose: () => void;
  onDisabled: (code: string) => void;
}) {
  const update = useUpdateSubMerchant(props.session);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (update.isPending) return;
    update.mutate(
      { code: props.subMerchant.code, changes: { status: 'disabled' } },
      { onSuccess: (saved) => props.onDisabled(saved.code) },
    );
  };
  return (
    <Dialog
      title={t('subMerchants.disableTitle', { code: props.subMerchant.code })}
      onClose={props.onClose}
    >
      <form onSubmit={submit}>
        <p>{t('subMerchants.disableIntro')}</p>
        <ErrorMessage error={update.error} />
        <div className="actions">
          <button type="button" className="secondary" onClick={props.onClose}>
            {t('subMerchants.cancel')}
          </button>
          <button type="submit" className="danger" disabled={update.isPending}>
            {t('subMerchants.disableConfirm')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
