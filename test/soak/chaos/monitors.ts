import { readFileSync } from 'node:fs';
import { WebhookReceiver } from '../../support/webhook-receiver';
import type { ServiceProcess } from './cluster';
import { slope } from './heap';

/**
 * RSS of every service process every 5 s, per process incarnation (a restart is a new one):
 * reported, not judged (V8 grows its heap lazily: the heap after GC is judged, heap.ts).
 */
export class MemorySampler {
  readonly samples = new Map<string, Array<{ pid: number; at: number; mb: number }>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly processes: () => ServiceProcess[]) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), 5000);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private sample(): void {
    for (const process of this.processes()) {
      const pid = process.pid();
      if (!pid) continue;
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
        if (!kb) continue;
        const list = this.samples.get(process.name) ?? [];
        list.push({ pid, at: Date.now(), mb: kb / 1024 });
        this.samples.set(process.name, list);
      } catch {
        // The process died between the pid and the read: the next sample sees its successor.
      }
    }
  }

  /**
   * Per process: the least-squares slope (MB/min) of the longest-lived incarnation's samples
   * after its first `warmUpMs`, with its first and last RSS.
   */
  slopes(warmUpMs: number) {
    const result: Record<
      string,
      {
        slopeMbPerMin: number | null;
        firstMb: number;
        fromMb: number;
        toMb: number;
        minutes: number;
        restarts: number;
      }
    > = {};
    for (const [name, samples] of this.samples) {
      const byPid = new Map<number, typeof samples>();
      for (const sample of samples)
        byPid.set(sample.pid, [...(byPid.get(sample.pid) ?? []), sample]);
      const longest = [...byPid.values()].sort((a, b) => span(b) - span(a))[0];
      const warm = longest.filter((sample) => sample.at - longest[0].at >= warmUpMs);
      result[name] = {
        slopeMbPerMin: warm.length >= 4 ? round(slope(warm) * 60_000, 2) : null,
        firstMb: round(longest[0].mb, 1),
        fromMb: round(warm[0]?.mb ?? longest[0].mb, 1),
        toMb: round(longest[longest.length - 1].mb, 1),
        minutes: round(span(warm) / 60_000, 1),
        restarts: byPid.size - 1,
      };
    }
    return result;
  }
}

const span = (samples: Array<{ at: number }>) =>
  samples.length ? samples[samples.length - 1].at - samples[0].at : 0;
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** A receiver's view of the events: first arrival per event, per object in arrival order. */
export function receivedOrder(receiver: WebhookReceiver) {
  const seen = new Set<string>();
  const byObject = new Map<string, Array<{ id: string; sequence: number; type: string }>>();
  for (const webhook of receiver.received) {
    let event: { id: string; type: string; sequence: number; data: { object: { id: string } } };
    try {
      event = JSON.parse(webhook.body);
    } catch {
      continue;
    }
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const objectId = event.data.object.id;
    byObject.set(objectId, [
      ...(byObject.get(objectId) ?? []),
      { id: event.id, sequence: event.sequence, type: event.type },
    ]);
  }
  const outOfOrder: Array<{ objectId: string; sequences: number[] }> = [];
  for (const [objectId, events] of byObject) {
    const sequences = events.map((event) => event.sequence);
    if (sequences.some((sequence, i) => i > 0 && sequence <= sequences[i - 1]))
      outOfOrder.push({ objectId, sequences });
  }
  return { eventIds: seen, deliveries: receiver.received.length, outOfOrder };
}

/**
 * The flaky receiver cycles every 60 s: 15 s of 500s, 15 s hanging (the worker's 3 s timeout
 * cuts them), 30 s healthy. The steady one always answers 200.
 */
export function flakyCycle(receiver: WebhookReceiver): () => void {
  const phases = [
    { ms: 15_000, reply: { status: 500, body: 'down' } as const },
    { ms: 15_000, reply: 'hang' as const },
    { ms: 30_000, reply: { status: 200, body: 'ok' } as const },
  ];
  let index = 0;
  let timer: NodeJS.Timeout;
  const next = () => {
    const phase = phases[index++ % phases.length];
    receiver.replyAlways(phase.reply);
    timer = setTimeout(next, phase.ms);
  };
  next();
  return () => {
    clearTimeout(timer);
    receiver.replyAlways({ status: 200, body: 'ok' });
  };
}
