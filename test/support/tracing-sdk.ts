import { context, propagation, trace } from '@opentelemetry/api';
import type { InstrumentationModuleDefinition } from '@opentelemetry/instrumentation';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startTracing } from '@app/common/tracing/start-tracing';

/**
 * Tracing on for this test process, as TRACING_ENABLED=true starts it (the same SDK setup and
 * instrumentations), its spans kept in memory by OpenTelemetry's in-memory exporter.
 */
export const spanExporter = new InMemorySpanExporter();
const tracing = startTracing({
  serviceName: 'payments-test',
  spanProcessors: [new SimpleSpanProcessor(spanExporter)],
});

/*
 * The instrumentations patch modules from a hook on Node's module loader, which Jest hides (its
 * `module` is a stand-in, and it loads packages through its own registry). So their patches are
 * applied here by hand, the same patch functions on the modules this test's apps will be given:
 * node:http and node:https, and express, pg, pg-pool and ioredis as Jest loads them.
 */
const unpatches: Array<() => void> = [];
for (const instrumentation of tracing.instrumentations) {
  for (const definition of instrumentation.getModuleDefinitions()) patch(definition);
}

function patch(definition: InstrumentationModuleDefinition): void {
  const core = definition.name === 'http' || definition.name === 'https';
  /* eslint-disable @typescript-eslint/no-require-imports */
  // The installed versions are within every instrumentation's supported range (the SDK checks
  // them when it patches through the loader; installing another major version is a decision).
  const version = core ? process.versions.node : packageVersion(definition.name);
  const exports: unknown = require(definition.name);
  const patched = definition.patch?.(exports, version) ?? exports;
  unpatches.push(() => definition.unpatch?.(patched, version));
  for (const file of definition.files) {
    let fileExports: unknown;
    try {
      fileExports = require(file.name);
    } catch {
      continue; // pg's native client: not installed
    }
    file.patch(fileExports, version);
    unpatches.push(() => file.unpatch(fileExports, version));
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** The version of an installed package (some, pg-pool, do not export their package.json). */
function packageVersion(name: string): string {
  let directory = dirname(require.resolve(name));
  while (!existsSync(join(directory, 'package.json')) || readPackage(directory).name !== name) {
    directory = dirname(directory);
  }
  return readPackage(directory).version;
}

function readPackage(directory: string): { name: string; version: string } {
  return JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
}

/** Stops tracing and unpatches the modules, so that later suites in this Jest worker run without. */
export async function stopTracing(): Promise<void> {
  for (const unpatch of unpatches.reverse()) unpatch();
  await tracing.stop();
  trace.disable();
  context.disable();
  propagation.disable();
}
