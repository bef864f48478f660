// The part of autocannon's API bench/api uses (the package ships no types).
declare module 'autocannon' {
  interface Request {
    path: string;
    setupRequest?: (request: { headers: Record<string, string> }) => unknown;
  }
  interface Options {
    url: string;
    connections: number;
    pipelining: number;
    duration: number;
    timeout: number;
    method: string;
    headers: Record<string, string>;
    body?: string;
    requests: Request[];
  }
  interface Histogram {
    average: number;
    total: number;
    sent: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    duration: number;
    '2xx': number;
    non2xx: number;
    errors: number;
    timeouts: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  function autocannon(options: Options, done: (error: Error | null, result: Result) => void): void;
  export default autocannon;
}
