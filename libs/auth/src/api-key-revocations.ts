import {
  Inject,
  Injectable,
  Logger,
  OnModuleDestroy,
  OnModuleInit,
  Optional,
} from '@nestjs/common';
import { Client } from 'pg';
import { APP_CONFIG, AppConfig } from '@app/common';
import { API_KEY_CHANGED_CHANNEL, ApiKeysService } from './api-keys.service';

// A lost connection is retried after this long; meanwhile the cache's 1 s TTL bounds staleness.
const RECONNECT_DELAY_MS = 2_000;
// Startup waits for the first attempt: never forever on a database that does not answer.
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * How often the idle LISTEN connection is asked `SELECT 1`, and how long the answer may take.
 * A connection that died silently (a load balancer or NAT dropping idle state) fires neither
 * `error` nor `end`; TCP keepalive notices it only after minutes, this within a minute.
 */
export interface ApiKeyRevocationsTiming {
  healthCheckIntervalMs: number;
  healthCheckTimeoutMs: number;
}

export const API_KEY_REVOCATIONS_TIMING = Symbol('API_KEY_REVOCATIONS_TIMING');

const DEFAULT_TIMING: ApiKeyRevocationsTiming = {
  healthCheckIntervalMs: 30_000,
  healthCheckTimeoutMs: 10_000,
};

/**
 * One LISTEN connection per API process on API_KEY_CHANGED_CHANNEL: a key revoked or rolled on any
 * process (or by the CLI) leaves this process's cache as soon as the change commits, so a revoked
 * key stops working everywhere within the notification's delivery time, not the cache's TTL.
 * The same approach as the checkout page's SessionChanges, but connected from startup: every API
 * process authenticates keys. The CLI does not load it (it caches nothing worth evicting).
 */
@Injectable()
export class ApiKeyRevocations implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyRevocations.name);
  private client: Client | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private healthTimer: NodeJS.Timeout | null = null;
  private pid: number | null = null;

  constructor(
    private readonly apiKeys: ApiKeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional()
    @Inject(API_KEY_REVOCATIONS_TIMING)
    private readonly timing: ApiKeyRevocationsTiming = DEFAULT_TIMING,
  ) {}

  /** Whether notifications are being received (false while reconnecting). */
  get listening(): boolean {
    return this.client !== null;
  }

  /** The listening connection's server process (pg_stat_activity.pid), or null. */
  get backendPid(): number | null {
    return this.client ? this.pid : null;
  }

  async onModuleInit(): Promise<void> {
    // Awaited, so a process that serves requests already hears revocations; a failure does not
    // stop the API (the cache's TTL still applies) and is retried.
    await this.connect().catch(() => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.healthTimer) clearInterval(this.healthTimer);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.config.databaseUrl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // The kernel probes an idle connection, so a dead peer eventually errors the socket.
      keepAlive: true,
    });
    client.on('notification', (message) => {
      if (message.payload) this.apiKeys.forget(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`LISTEN ${API_KEY_CHANGED_CHANNEL}`);
      const { rows } = await client.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
      this.pid = rows[0].pid;
    } catch (error) {
      this.lost(client, error);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Notifications sent while no connection listened are lost: forget what may be stale.
    this.apiKeys.forgetAll();
    this.startHealthChecks(client);
  }

  /** `SELECT 1` on the listening connection now and then; no answer in time means it is lost. */
  private startHealthChecks(client: Client): void {
    if (this.healthTimer) clearInterval(this.healthTimer);
    let checking = false;
    this.healthTimer = setInterval(() => {
      if (checking || this.client !== client) return;
      checking = true;
      this.answersInTime(client)
        .catch((error: unknown) => this.lost(client, error))
        .finally(() => {
          checking = false;
        });
    }, this.timing.healthCheckIntervalMs);
    this.healthTimer.unref();
  }

  private async answersInTime(client: Client): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error('the LISTEN connection did not answer a health check in time')),
        this.timing.healthCheckTimeoutMs,
      );
    });
    try {
      await Promise.race([client.query('SELECT 1'), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private lost(client: Client, error: unknown): void {
    const wasListening = this.client === client;
    if (wasListening) {
      this.client = null;
      if (this.healthTimer) clearInterval(this.healthTimer);
      this.healthTimer = null;
      // Whatever was revoked since the connection died went unheard.
      this.apiKeys.forgetAll();
    }
    client.removeAllListeners('notification');
    client.removeAllListeners('end');
    if (this.closed) return;
    if (error || wasListening) {
      this.logger.warn(
        { err: error ?? undefined },
        'API key revocation listener lost its connection; revocations rely on the cache TTL until it is back',
      );
    }
    client.end().catch(() => undefined);
    if (this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.closed && !this.client) this.connect().catch(() => undefined);
    }, RECONNECT_DELAY_MS);
    this.reconnectTimer.unref();
  }
}
