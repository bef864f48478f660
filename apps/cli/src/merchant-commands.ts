import { DataSource } from 'typeorm';
import { ApiKeysService, MerchantsService } from '@app/auth';
import { recordAudit } from '@app/console';
import { Command, optionalDecimal, required } from './cli-options';
import { UsageError } from './usage-error';

/** Who the CLI's changes are audited as: whoever runs it on the server, not a console account. */
const CLI_ACTOR = { actorType: 'cli', actorId: null } as const;

function httpUrl(value: string, name: string): string {
  if (!/^https?:\/\/\S+$/.test(value)) throw new UsageError(`--${name} must be an http(s) URL.`);
  return value;
}

function merchantView(merchant: {
  id: string;
  kind: string;
  name: string;
  logoUrl: string | null;
  createdAt: Date;
}) {
  return {
    merchant_id: merchant.id,
    kind: merchant.kind,
    name: merchant.name,
    logo_url: merchant.logoUrl,
    created_at: merchant.createdAt.toISOString(),
  };
}

/** Merchants, their fee rules and payout policy, and their API keys. */
export const MERCHANT_COMMANDS: Record<string, Command> = {
  'merchants:create': async (app, options) => {
    const name = required(options, 'name');
    if (name.length > 200) throw new UsageError('--name must be at most 200 characters.');
    const logoUrl =
      typeof options['logo-url'] === 'string' ? httpUrl(options['logo-url'], 'logo-url') : null;
    // The merchant, its first key and their audit entry commit together.
    const { merchant, key } = await app.get(DataSource).transaction(async (manager) => {
      const merchant = await app
        .get(MerchantsService)
        .create({ name, kind: options.psp ? 'psp' : 'direct', logoUrl }, manager);
      const key = await app.get(ApiKeysService).create(merchant.id, manager);
      await recordAudit(manager, {
        ...CLI_ACTOR,
        merchantId: merchant.id,
        action: 'merchant.created',
        targetType: 'merchant',
        targetId: merchant.id,
        details: { name, kind: merchant.kind, api_key_id: key.id, key_hint: key.key_hint },
      });
      return { merchant, key };
    });
    return { ...merchantView(merchant), api_key_id: key.id, api_key: key.api_key };
  },

  'merchants:list': async (app) => (await app.get(MerchantsService).list()).map(merchantView),

  'keys:create': async (app, options) => {
    const merchantId = required(options, 'merchant');
    if (!(await app.get(MerchantsService).findById(merchantId))) {
      throw new UsageError(`No merchant ${merchantId}.`);
    }
    const key = await app.get(DataSource).transaction(async (manager) => {
      const key = await app.get(ApiKeysService).create(merchantId, manager);
      await recordAudit(manager, {
        ...CLI_ACTOR,
        merchantId,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: key.id,
        details: { name: null, scopes: null, key_hint: key.key_hint },
      });
      return key;
    });
    return {
      merchant_id: merchantId,
      api_key_id: key.id,
      api_key: key.api_key,
      livemode: key.livemode,
    };
  },

  'keys:list': async (app, options) => {
    const keys = await app.get(ApiKeysService).listForMerchant(required(options, 'merchant'));
    return keys.map((key) => ({
      api_key_id: key.id,
      hint: key.keyHint,
      livemode: key.livemode,
      created_at: key.createdAt.toISOString(),
      revoked_at: key.revokedAt?.toISOString() ?? null,
    }));
  },

  'keys:revoke': async (app, options) => {
    const keyId = required(options, 'key');
    const apiKeys = app.get(ApiKeysService);
    // The revocation and its audit entry commit together (the NOTIFY goes out on commit).
    const revoked = await app.get(DataSource).transaction(async (manager) => {
      const [key]: Array<{ merchant_id: string }> = await manager.query(
        `SELECT merchant_id FROM api_keys WHERE id = $1`,
        [keyId],
      );
      if (!key || !(await apiKeys.revoke(keyId, {}, manager))) return false;
      await recordAudit(manager, {
        ...CLI_ACTOR,
        merchantId: key.merchant_id,
        action: 'api_key.revoked',
        targetType: 'api_key',
        targetId: keyId,
      });
      return true;
    });
    if (!revoked) throw new UsageError(`No active API key ${keyId}.`);
    apiKeys.forget(keyId);
    return { api_key_id: keyId, revoked: true };
  },

  'merchants:set-fee': async (app, options) => {
    const merchantId = required(options, 'merchant');
    const percent = optionalDecimal(options, 'percent', /^(0|[1-9][0-9]?)(\.[0-9]{1,4})?$/);
    const fixed = optionalDecimal(options, 'fixed', /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$/);
    if (!(await app.get(MerchantsService).setFeeRule(merchantId, percent, fixed))) {
      throw new UsageError(`No merchant ${merchantId}.`);
    }
    return { merchant_id: merchantId, fee_percent: percent, fee_fixed: fixed };
  },

  'merchants:set-payout-policy': async (app, options) => {
    const merchantId = required(options, 'merchant');
    const feePercent = optionalDecimal(options, 'fee-percent', /^(0|[1-9][0-9]?)(\.[0-9]{1,4})?$/);
    const review = options['review-new-destinations'];
    if (review !== undefined && review !== 'true' && review !== 'false') {
      throw new UsageError('--review-new-destinations must be true or false.');
    }
    const reviewNewDestinations = review === 'true';
    const merchants = app.get(MerchantsService);
    if (!(await merchants.setPayoutPolicy(merchantId, feePercent, reviewNewDestinations))) {
      throw new UsageError(`No merchant ${merchantId}.`);
    }
    return {
      merchant_id: merchantId,
      payout_fee_percent: feePercent,
      review_new_destinations: reviewNewDestinations,
    };
  },
};

export const MERCHANT_USAGE = `  merchants:create --name NAME [--psp] [--logo-url URL]
                                               create a merchant and its first API key (shown once)
  merchants:list
  merchants:set-fee --merchant MERCHANT_ID [--percent P] [--fixed AMOUNT]
                                               fee rule; an omitted part uses the default
  merchants:set-payout-policy --merchant MERCHANT_ID [--fee-percent P]
                              [--review-new-destinations true|false]
                                               payout policy: percent fee on top of the network's
                                               fixed fee, and whether a first payout to a new
                                               address waits for review; an omitted part uses the
                                               default (PAYOUT_FEE_PERCENT, false)
  keys:create --merchant MERCHANT_ID           issue another API key (shown once)
  keys:list --merchant MERCHANT_ID
  keys:revoke --key API_KEY_ID`;
