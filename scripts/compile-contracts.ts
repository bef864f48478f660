import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { format, resolveConfig } from 'prettier';
import solc from 'solc';

// Compiles contracts/TestToken.sol with solcjs and writes contracts/build/TestToken.json, which
// is committed: tests and the devnet deploy that bytecode and never need a compiler.
// The output is deterministic (fixed settings, source names relative to the repository, no
// timestamps), so running this again without changes leaves the file untouched.

const ROOT = join(__dirname, '..');
const CONTRACT_SOURCE = 'contracts/TestToken.sol';
const CONTRACT_NAME = 'TestToken';
const ARTIFACT_FILE = join(ROOT, 'contracts', 'build', `${CONTRACT_NAME}.json`);
// Cancun rather than the compiler's newest default: the bytecode then also runs on nodes and
// testnets that have not enabled the latest hard fork.
const EVM_VERSION = 'cancun';

interface ImportResult {
  contents?: string;
  error?: string;
}

interface SolcCompiler {
  version(): string;
  compile(input: string, callbacks: { import(path: string): ImportResult }): string;
}

interface CompilerMessage {
  severity: 'error' | 'warning' | 'info';
  formattedMessage: string;
}

interface CompilerOutput {
  errors?: CompilerMessage[];
  contracts?: Record<
    string,
    Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>
  >;
}

const compiler = solc as unknown as SolcCompiler;

async function main(): Promise<void> {
  const input = {
    language: 'Solidity',
    sources: { [CONTRACT_SOURCE]: { content: readFileSync(join(ROOT, CONTRACT_SOURCE), 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: EVM_VERSION,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(
    compiler.compile(JSON.stringify(input), { import: resolveImport }),
  ) as CompilerOutput;

  const messages = output.errors ?? [];
  for (const message of messages) console.warn(message.formattedMessage);
  if (messages.some((message) => message.severity === 'error')) {
    throw new Error('Compilation failed.');
  }
  const contract = output.contracts?.[CONTRACT_SOURCE]?.[CONTRACT_NAME];
  if (!contract) throw new Error(`${CONTRACT_NAME} is missing from the compiler output.`);

  const artifact = {
    contractName: CONTRACT_NAME,
    sourceName: CONTRACT_SOURCE,
    compiler: `solc ${compiler.version()}`,
    settings: { optimizerRuns: input.settings.optimizer.runs, evmVersion: EVM_VERSION },
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
  };
  // Formatted the way `prettier --check .` expects, so the lint step accepts the committed file.
  const options = (await resolveConfig(ARTIFACT_FILE)) ?? {};
  const text = await format(JSON.stringify(artifact), { ...options, parser: 'json' });
  mkdirSync(dirname(ARTIFACT_FILE), { recursive: true });
  writeFileSync(ARTIFACT_FILE, text);
  console.log(`Wrote ${relative(ROOT, ARTIFACT_FILE)} (${compiler.version()}).`);
}

/** Resolves `@openzeppelin/...` and other package imports from node_modules. */
function resolveImport(path: string): ImportResult {
  try {
    return { contents: readFileSync(require.resolve(path, { paths: [ROOT] }), 'utf8') };
  } catch {
    return { error: `File not found: ${path}` };
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
