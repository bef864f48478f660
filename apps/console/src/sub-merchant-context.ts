import { useSyncExternalStore } from 'react';
import type { ConsoleSession } from './api/console-api';
import { setSubMerchantCode } from './api/http';
import { can } from './session';

/*
 * The sub-merchant a PSP's console acts for, chosen in the header (docs/console.md). Kept per tab
 * (sessionStorage: another tab keeps its own choice, and it ends with the tab) and per merchant,
 * so switching merchant never carries one merchant's code to another.
 */
const STORAGE_KEY = 'console.subMerchantContext';

type Choices = Record<string, string>;

function readChoices(): Choices {
  try {
    const parsed: unknown = JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Choices) : {};
  } catch {
    return {};
  }
}

let activeMerchantId: string | null = null;
let activeCode: string | null = null;
const listeners = new Set<() => void>();

/** Sets the code every call carries; `notify` re-renders the components that show it. */
function publish(code: string | null, notify: boolean): void {
  if (code === activeCode) return;
  activeCode = code;
  setSubMerchantCode(code);
  if (notify) for (const listener of listeners) listener();
}

/** Whether this session's merchant can have sub-merchants and its role may see them. */
export function canActForSubMerchants(session: ConsoleSession | null | undefined): boolean {
  return session?.merchant?.kind === 'psp' && can(session, 'sub_merchants:read');
}

/**
 * Applies the tab's choice for the session's merchant, before the pages below fetch anything
 * (called while the frame renders; idempotent). No merchant, a direct one, a role without
 * sub_merchants:read or an operator's view: no context.
 */
export function applySubMerchantContext(session: ConsoleSession | null | undefined): void {
  activeMerchantId = canActForSubMerchants(session) ? (session?.merchant?.id ?? null) : null;
  // Silent: the components below render after the frame and read the new value then (telling
  // them now would update them while another component renders).
  publish(activeMerchantId ? (readChoices()[activeMerchantId] ?? null) : null, false);
}

/** Chooses a sub-merchant (null: the merchant itself, all of its records) for this tab. */
export function chooseSubMerchant(code: string | null): void {
  if (!activeMerchantId) return;
  const choices = readChoices();
  if (code) choices[activeMerchantId] = code;
  else delete choices[activeMerchantId];
  window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(choices));
  publish(code, true);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The code the console acts for now, null for the merchant itself. */
export function useSubMerchantCode(): string | null {
  return useSyncExternalStore(subscribe, () => activeCode);
}
