// The webhook receivers of `npm run bench:webhooks`, in a process of their own (started by
// children.ts) so that their CPU neither slows the event generator nor hides in the
// orchestrator's: one loopback port per live endpoint answering 200 at once, and per dead endpoint
// a port that accepts the connection and never answers. Arrival times are taken here.
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { timestamp } from '../kit/clock';
import { serve } from './ipc';

/** One request received: which endpoint, its webhook-id, when (epoch ms, sub-ms). */
export interface Arrival {
  endpoint: string;
  id: string;
  at: number;
}

/** A request kept whole, to verify its signature with the official library. */
export interface SignedSample {
  endpoint: string;
  body: string;
  headers: Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;
}

export type PortRequest = Record<'live' | 'hanging' | 'closed', number>;
export type Ports = Awaited<ReturnType<typeof open>>;
export type ReceiverApi = typeof handlers;

// Kept with their raw body to verify signatures: the first few of each endpoint, then 1 in N.
const FIRST_SAMPLES_PER_ENDPOINT = 3;
const SAMPLE_EVERY = 500;

const hanging = new Set<ServerResponse>();
let arrivals: Arrival[] = [];
let samples: SignedSample[] = [];
const samplesByEndpoint = new Map<string, number>();
/** Bodies whose `id` is not their webhook-id header (or that are not JSON). */
let mismatches = 0;

function header(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

function record(endpoint: string, request: IncomingMessage, body: string, at: number): void {
  const id = header(request, 'webhook-id');
  arrivals.push({ endpoint, id, at });
  try {
    if ((JSON.parse(body) as { id?: string }).id !== id) mismatches++;
  } catch {
    mismatches++;
  }
  const kept = samplesByEndpoint.get(endpoint) ?? 0;
  if (kept < FIRST_SAMPLES_PER_ENDPOINT || arrivals.length % SAMPLE_EVERY === 0) {
    samplesByEndpoint.set(endpoint, kept + 1);
    samples.push({
      endpoint,
      body,
      headers: {
        'webhook-id': id,
        'webhook-timestamp': header(request, 'webhook-timestamp'),
        'webhook-signature': header(request, 'webhook-signature'),
      },
    });
  }
}

/**
 * An endpoint's server: records each request (its arrival is when node hands us the request, before
 * the body is read) and then answers it, or holds it open.
 */
function endpointServer(endpoint: string, answer: (response: ServerResponse) => void): Server {
  return createServer((request, response) => {
    const at = timestamp();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      record(endpoint, request, Buffer.concat(chunks).toString('utf8'), at);
      answer(response);
    });
  });
}

/** A live endpoint: 200 as soon as the body is in. */
function liveServer(endpoint: string): Server {
  return endpointServer(endpoint, (response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('ok');
  });
}

/** A dead endpoint that hangs: reads the request, never answers (the sender times out). */
function hangingServer(endpoint: string): Server {
  const server = endpointServer(endpoint, (response) => {
    hanging.add(response);
    response.on('close', () => hanging.delete(response));
  });
  // Without this node would answer 408 to a request unanswered for 5 minutes; it must hang.
  server.requestTimeout = 0;
  return server;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Ports nothing listens on: taken from the kernel, then closed (connection refused). */
async function closedPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let index = 0; index < count; index++) {
    const server = createServer();
    ports.push(await listen(server));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return ports;
}

async function open(request: PortRequest) {
  const live: number[] = [];
  for (let index = 0; index < request.live; index++) {
    live.push(await listen(liveServer(`live-${index}`)));
  }
  const hangingPorts: number[] = [];
  for (let index = 0; index < request.hanging; index++) {
    hangingPorts.push(await listen(hangingServer(`hanging-${index}`)));
  }
  return { live, hanging: hangingPorts, closed: await closedPorts(request.closed) };
}

/** Everything recorded since the last collect (then forgotten). */
function collect() {
  const collected = { arrivals, samples, mismatches };
  arrivals = [];
  samples = [];
  mismatches = 0;
  samplesByEndpoint.clear();
  return collected;
}

/** Ends the requests a hanging endpoint holds (between phases, so the next starts clean). */
function release(): number {
  const count = hanging.size;
  for (const response of hanging) response.destroy();
  hanging.clear();
  return count;
}

const handlers = { open, collect, release };
serve(handlers);
