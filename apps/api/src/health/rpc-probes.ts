import { Inject, Injectable } from '@nestjs/common';
import { ChainAdapters, NetworkName } from '@app/chains';
import { watchedNetworks } from '@app/deposits/networks-status/watched-networks';
import { APP_CONFIG, AppConfig } from '@app/common';

// A probe result is reused this long: readiness may be polled every second by several load
// balancers, and a paid RPC should see at most one head request per network per interval.
export const RPC_PROBE_MAX_AGE_MS = 15_000;
const RPC_PROBE_TIMEOUT_MS = 2_000;

export interface RpcProbeResult {
  network: NetworkName;
  up: boolean;
  /** Why it is down: the error's message only, never the RPC URL (it may hold an API key). */
  reason?: string;
  checkedAt: number;
}

/** Whether each watched network's RPC answers a head request, cached per network. */
@Injectable()
export class RpcProbes {
  private readonly results = new Map<NetworkName, RpcProbeResult>();
  private readonly running = new Map<NetworkName, Promise<RpcProbeResult>>();

  constructor(
    private readonly adapters: ChainAdapters,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async probeAll(): Promise<RpcProbeResult[]> {
    return Promise.all([...watchedNetworks(this.config)].map((network) => this.probe(network)));
  }

  private probe(network: NetworkName): Promise<RpcProbeResult> {
    const cached = this.results.get(network);
    if (cached && Date.now() - cached.checkedAt < RPC_PROBE_MAX_AGE_MS) {
      return Promise.resolve(cached);
    }
    let running = this.running.get(network);
    if (!running) {
      running = this.askHead(network).then((result) => {
        this.results.set(network, result);
        this.running.delete(network);
        return result;
      });
      this.running.set(network, running);
    }
    return running;
  }

  private async askHead(network: NetworkName): Promise<RpcProbeResult> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.adapters.adapterFor(network).getHeadBlockNumber(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${RPC_PROBE_TIMEOUT_MS} ms`)),
            RPC_PROBE_TIMEOUT_MS,
          );
        }),
      ]);
      return { network, up: true, checkedAt: Date.now() };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { network, up: false, reason: withoutUrls(reason), checkedAt: Date.now() };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Error messages of HTTP clients quote the URL, and an RPC URL may carry a key. */
function withoutUrls(message: string): string {
  return message.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>').slice(0, 200);
}
