import { en, MessageKey } from './en';

/** The one language for now; a second locale is another dictionary with the same keys. */
const messages: Record<MessageKey, string> = en;

/** The message for `key`, with `{name}` placeholders replaced from `params`. */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  return messages[key].replace(/\{(\w+)\}/g, (placeholder, name: string) =>
    name in params ? String(params[name]) : placeholder,
  );
}

export function hasMessage(key: string): key is MessageKey {
  return key in messages;
}
