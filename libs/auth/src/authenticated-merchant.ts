import { MerchantKind } from './merchant.entity';
import { ConsoleRole, Permission } from './permissions';

/** A call made with an API key: a full secret key, or a restricted one with its scopes. */
export interface ApiKeyActor {
  type: 'api_key';
  apiKeyId: string;
}

/** A call made from the merchant console, by a signed-in member of the merchant's team. */
export interface ConsoleUserActor {
  type: 'console_user';
  userId: string;
  /** The console session's id hash (hex): what "sign out other sessions" leaves alone. */
  sessionId: string;
  role: ConsoleRole;
  /** An operator viewing as this merchant: read-only, audited in both logs. */
  operatorId?: string;
}

/** Who is calling: resolved once per request by the authentication guard. */
export interface AuthenticatedMerchant {
  merchantId: string;
  kind: MerchantKind;
  name: string;
  logoUrl: string | null;
  livemode: boolean;
  /** The key used, or null for a console session. */
  apiKeyId: string | null;
  actor: ApiKeyActor | ConsoleUserActor;
  /** What this caller may do: every permission for a full secret key or an owner. */
  permissions: ReadonlySet<Permission>;
}
