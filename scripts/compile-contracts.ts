import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { format, resolveConfig } from 'prettier';
import solc from 'solc';

// Compiles every contracts/<Name>.sol with solcjs and writes contracts/build/<Name>.json (the
// contract named like its file), which is committed: the services, tests and the devnet use
// that ABI and bytecode and never need a compiler.
// The output is deterministic (fixed settings, source names relative to the repository, no
// timestamps, one compiler input per file so a new contract never changes another's bytecode),
// so running this again without changes leaves the files untouched.

const ROOT = join(__dirname, '..');
const CONTRACTS_DIR = join(ROOT, 'contracts');
const BUILD_DIR = join(CONTRACTS_DIR, 'build');
// Cancun rather than the compiler's newest default: the bytecode then also runs on nodes and
// testnets that have not enabled the latest hard fork. EIP-7702 delegation needs Prague on the
// chain, not in the delegate's bytecode.
const EVM_VERSION = 'cancun';
const OPTIMIZER_RUNS = 200;

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

interface CompiledContract {
  abi: unknown[];
  evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
}

interface CompilerOutput {
  errors?: CompilerMessage[];
  contracts?: Record<string, Record<string, CompiledContract>>;
}

const compiler = solc as unknown as SolcCompiler;

async function main(): Promise<void> {
  const sources = readdirSync(CONTRACTS_DIR)
    .filter((file) => file.endsWith('.sol'))
    .sort();
  for (const file of sources) await compileContract(`contracts/${file}`);
}

async function compileContract(sourceName: string): Promise<void> {
  const contractName = basename(sourceName, '.sol');
  const input = {
    language: 'Solidity',
    sources: { [sourceName]: { content: readFileSync(join(ROOT, sourceName), 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: OPTIMIZER_RUNS },
      evmVersion: EVM_VERSION,
      outputSelection: {
        '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      },
    },
  };
  const output = JSON.parse(
    compiler.compile(JSON.stringify(input), { import: resolveImport }),
  ) as CompilerOutput;

  const messages = output.errors ?? [];
  for (const message of messages) console.warn(message.formattedMessage);
  if (messages.some((message) => message.severity === 'error')) {
    throw new Error(`Compilation of ${sourceName} failed.`);
  }
  const contract = output.contracts?.[sourceName]?.[contractName];
  if (!contract) throw new Error(`${contractName} is missing from the compiler output.`);

  const artifactFile = join(BUILD_DIR, `${contractName}.json`);
  const artifact = {
    contractName,
    sourceName,
    compiler: `solc ${compiler.version()}`,
    settings: { optimizerRuns: OPTIMIZER_RUNS, evmVersion: EVM_VERSION },
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    // The code as it sits on chain, for anvil_setCode (Multicall3 at its canonical address).
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
  };
  // Formatted the way `prettier --check .` expects, so the lint step accepts the committed file.
  const options = (await resolveConfig(artifactFile)) ?? {};
  const text = await format(JSON.stringify(artifact), { ...options, parser: 'json' });
  mkdirSync(dirname(artifactFile), { recursive: true });
  writeFileSync(artifactFile, text);
  console.log(`Wrote ${relative(ROOT, artifactFile)} (${compiler.version()}).`);
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
