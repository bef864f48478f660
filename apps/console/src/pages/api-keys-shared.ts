import { t } from '../i18n/t';

export const API_KEYS_QUERY_KEY = ['api-keys'] as const;

export function keyName(key: { name: string | null }): string {
  return key.name ?? t('apiKeys.unnamed');
}
