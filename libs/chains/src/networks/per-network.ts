import { NetworkName } from './network.types';

/** One instance per network, created on first use; closeAll() releases them all. */
export class PerNetwork<T extends { close(): Promise<void> }> {
  private readonly instances = new Map<NetworkName, T>();

  constructor(private readonly create: (name: NetworkName) => T) {}

  get(name: NetworkName): T {
    const existing = this.instances.get(name);
    if (existing) return existing;
    const created = this.create(name);
    this.instances.set(name, created);
    return created;
  }

  async closeAll(): Promise<void> {
    const instances = [...this.instances.values()];
    this.instances.clear();
    await Promise.all(instances.map((instance) => instance.close()));
  }
}
