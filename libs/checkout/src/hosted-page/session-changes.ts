import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Client } from 'pg';
import { APP_CONFIG, AppConfig } from '@app/common';

/**
 * PostgreSQL channel announcing that a session changed (payload: its id). NOTIFY is sent in the
 * transaction of the change and delivered at commit to every listening API process, so a page
 * open on any of them learns of a change the worker made, and never of one rolled back.
 */
export const SESSION_CHANGED_CHANNEL = 'checkout_session_changed';

type Listener = () => void;

// A lost connection is retried after this long; pages fall back to their periodic refresh.
const RECONNECT_DELAY_MS = 2_000;

/**
 * One LISTEN connection per API process, shared by every open checkout page of that process.
 * Connects on the first subscription, so processes that serve no page hold no connection.
 */
@Injectable()
export class SessionChanges implements OnModuleDestroy {
  private readonly logger = new Logger(SessionChanges.name);
  private readonly listeners = new Map<string, Set<Listener>>();
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;
  private readonly streams = new Set<() => void>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Calls `listener` after each committed change of the session; returns the unsubscribe. */
  async subscribe(sessionId: string, listener: Listener): Promise<() => void> {
    const set = this.listeners.get(sessionId) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(sessionId, set);
    await this.ensureConnected().catch(() => undefined);
    return () => {
      set.delete(listener);
      if (!set.size) this.listeners.delete(sessionId);
    };
  }

  /** Registers an open stream's end, so shutdown never waits on a page that stays open. */
  track(end: () => void): () => void {
    if (this.closed) {
      end();
      return () => undefined;
    }
    this.streams.add(end);
    return () => this.streams.delete(end);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    for (const end of [...this.streams]) end();
    await this.client?.end().catch(() => undefined);
  }

  private ensureConnected(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl });
    client.on('notification', (message) => {
      for (const listener of this.listeners.get(message.payload ?? '') ?? []) listener();
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`LISTEN ${SESSION_CHANGED_CHANNEL}`);
      this.client = client;
    } catch (error) {
      this.lost(client, error);
      throw error;
    }
  }

  private lost(client: Client, error: unknown): void {
    if (this.client === client) this.client = null;
    client.removeAllListeners('notification');
    if (this.closed) return;
    if (error) this.logger.warn({ err: error }, 'Session change listener lost its connection');
    client.end().catch(() => undefined);
    setTimeout(() => {
      if (this.listeners.size) this.ensureConnected().catch(() => undefined);
    }, RECONNECT_DELAY_MS).unref();
  }
}
