import http from 'node:http';
import { readFileSync } from 'node:fs';

/** The resident set of a process, in MB (VmRSS of /proc/<pid>/status). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

export interface Download {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  records: number;
  firstRecord: string;
  lastRecord: string;
  firstByteMs: number;
  totalMs: number;
}

/**
 * GETs `url` and reads the body as fast as it comes, counting bytes and CRLF-ended records and
 * keeping only the first and last data record: the client holds no more than the server does.
 */
export function download(url: string, headers: Record<string, string>): Promise<Download> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        let firstByteMs = 0;
        let bytes = 0;
        let records = 0;
        let pending = '';
        let firstRecord = '';
        let lastRecord = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (!bytes) firstByteMs = performance.now() - started;
          bytes += Buffer.byteLength(chunk);
          const lines = (pending + chunk).split('\r\n');
          pending = lines.pop() ?? '';
          for (const line of lines) {
            records += 1;
            if (records === 2) firstRecord = line;
            lastRecord = line;
          }
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            bytes,
            records,
            firstRecord,
            lastRecord,
            firstByteMs,
            totalMs: performance.now() - started,
          }),
        );
        response.on('error', reject);
      })
      .on('error', reject);
  });
}
