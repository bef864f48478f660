import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import {
  ApiKeysService,
  ApiKeySummary,
  AuthenticatedMerchant,
  ConsoleUserActor,
  CreatedApiKey,
  CurrentMerchant,
  RequiresPermission,
} from '@app/auth';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';
import { AuditEntry, recordAudit } from '../audit/audit-log';
import { clientInfo } from '../http/client-info';
import { requireFreshCode } from '../step-up/fresh-code';
import { lockCurrentRole } from '../team/actor-membership';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { scopesOfKey } from './api-key-scopes-of';
import { assertRoleMayIssue } from './key-issuance-rules';
import { CreateApiKeyDto } from './dto/create-api-key.dto';
import { RollApiKeyDto } from './dto/roll-api-key.dto';

/** The one answer carrying a key's secret: creation, and the replacement a roll issues. */
export interface NewApiKeyView {
  id: string;
  name: string | null;
  scopes: string[] | null;
  key_hint: string;
  api_key: string;
  livemode: boolean;
  created_at: string;
  expires_at: null;
}

export interface RolledApiKeyView extends NewApiKeyView {
  /** The rolled key, with the time it stops working. */
  previous_key: ApiKeySummary;
}

/**
 * The console's API keys page (docs/api-keys.md). Console users only: no API key holds
 * api_keys:*, so a key can neither list nor mint keys. Every change is audited in its own
 * transaction; the secret appears only in the answer to the person who created or rolled it.
 */
@ApiExcludeController()
@Controller('console/api/api-keys')
export class ApiKeysController {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly twoFactor: TwoFactorVerifier,
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @RequiresPermission('api_keys:read')
  async list(@CurrentMerchant() merchant: AuthenticatedMerchant): Promise<ApiKeySummary[]> {
    consoleUserOf(merchant);
    return this.apiKeys.list(merchant.merchantId);
  }

  @Post()
  @RequiresPermission('api_keys:write')
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateApiKeyDto,
    @Req() request: Request,
  ): Promise<NewApiKeyView> {
    const user = consoleUserOf(merchant);
    const scopes = body.scopes ?? null;
    const name = body.name ?? (scopes ? 'Restricted key' : 'Secret key');
    // Refused on the session's role before a fresh code is spent; the transaction decides.
    assertRoleMayIssue(user.role, scopes, 'create');
    await this.requireFreshCode(merchant, user, body.two_factor_code, 'create', request);
    const key = await this.dataSource.transaction(async (manager) => {
      const role = await lockCurrentRole(
        manager,
        merchant.merchantId,
        user.userId,
        'api_keys:write',
      );
      assertRoleMayIssue(role, scopes, 'create');
      const created = await this.apiKeys.create(
        { merchantId: merchant.merchantId, name, scopes, createdByUserId: user.userId },
        manager,
      );
      await recordAudit(manager, {
        ...this.auditBase(merchant, user, request),
        action: 'api_key.created',
        targetId: created.id,
        details: { name, scopes, key_hint: created.key_hint },
      });
      return created;
    });
    return newKeyView(key);
  }

  @Post(':id/roll')
  @HttpCode(200)
  @RequiresPermission('api_keys:write')
  async roll(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @Body() body: RollApiKeyDto,
    @Req() request: Request,
  ): Promise<RolledApiKeyView> {
    const user = consoleUserOf(merchant);
    const scopesBefore = await scopesOfKey(this.dataSource.manager, merchant.merchantId, id);
    if (scopesBefore !== undefined) assertRoleMayIssue(user.role, scopesBefore, 'roll');
    await this.requireFreshCode(merchant, user, body.two_factor_code, 'roll', request);
    const rolled = await this.dataSource.transaction(async (manager) => {
      const role = await lockCurrentRole(
        manager,
        merchant.merchantId,
        user.userId,
        'api_keys:write',
      );
      // A missing key is left to roll's 404.
      const scopes = await scopesOfKey(manager, merchant.merchantId, id, true);
      if (scopes !== undefined) assertRoleMayIssue(role, scopes, 'roll');
      const result = await this.apiKeys.roll(
        {
          apiKeyId: id,
          merchantId: merchant.merchantId,
          expiresIn: body.expires_in,
          rolledByUserId: user.userId,
        },
        manager,
      );
      await recordAudit(manager, {
        ...this.auditBase(merchant, user, request),
        action: 'api_key.rolled',
        targetId: id,
        details: {
          expires_in: body.expires_in,
          expires_at: result.previous.expires_at,
          new_key_id: result.key.id,
          new_key_hint: result.key.key_hint,
        },
      });
      return result;
    });
    // The commit's NOTIFY reaches every process; this one forgets the key without waiting for it.
    this.apiKeys.forget(id);
    return { ...newKeyView(rolled.key), previous_key: rolled.previous };
  }

  @Post(':id/revoke')
  @HttpCode(200)
  @RequiresPermission('api_keys:write')
  async revoke(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @Req() request: Request,
  ): Promise<ApiKeySummary> {
    const user = consoleUserOf(merchant);
    await this.dataSource.transaction(async (manager) => {
      await lockCurrentRole(manager, merchant.merchantId, user.userId, 'api_keys:write');
      const revoked = await this.apiKeys.revoke(id, { merchantId: merchant.merchantId }, manager);
      // Revoking twice is not an error (a double click): only the first is a change to audit.
      if (!revoked) return;
      await recordAudit(manager, {
        ...this.auditBase(merchant, user, request),
        action: 'api_key.revoked',
        targetId: id,
      });
    });
    this.apiKeys.forget(id);
    const key = await this.apiKeys.find(merchant.merchantId, id);
    if (!key) throw ApiException.notFound('API key', id);
    return key;
  }

  /**
   * Production keys move real money: minting one asks for a fresh second factor, checked and
   * counted in its own transaction (step-up/fresh-code.ts).
   */
  private async requireFreshCode(
    merchant: AuthenticatedMerchant,
    user: ConsoleUserActor,
    code: string | undefined,
    verb: 'create' | 'roll',
    request: Request,
  ): Promise<void> {
    if (!this.config.livemode) return;
    await requireFreshCode(this.dataSource, this.twoFactor, {
      userId: user.userId,
      merchantId: merchant.merchantId,
      code,
      purpose: `${verb} a live API key`,
      client: clientInfo(request),
    });
  }

  private auditBase(
    merchant: AuthenticatedMerchant,
    user: ConsoleUserActor,
    request: Request,
  ): Omit<AuditEntry, 'action'> {
    const client = clientInfo(request);
    return {
      merchantId: merchant.merchantId,
      actorType: user.operatorId ? 'operator' : 'console_user',
      actorId: user.operatorId ?? user.userId,
      targetType: 'api_key',
      ip: client.ip,
      userAgent: client.userAgent,
    };
  }
}

/** Keys never hold api_keys:*, so only a person gets here; checked again all the same. */
function consoleUserOf(merchant: AuthenticatedMerchant): ConsoleUserActor {
  if (merchant.actor.type !== 'console_user') {
    throw new ApiException(ErrorCode.InsufficientScope, 'API keys cannot manage API keys.');
  }
  return merchant.actor;
}

function newKeyView(key: CreatedApiKey): NewApiKeyView {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    key_hint: key.key_hint,
    api_key: key.api_key,
    livemode: key.livemode,
    created_at: key.created_at,
    expires_at: null,
  };
}
