import { Interface, InterfaceAbi } from 'ethers';
import multicall3Json from '../../../../contracts/build/Multicall3.json';
import sweepDelegateJson from '../../../../contracts/build/SweepDelegate.json';

/*
 * The compiled contracts the services use, from the committed contracts/build (written by
 * `npm run contracts:build`). Imported, not read from disk at run time: the build copies the JSON
 * beside the compiled code, so the API, worker and CLI find it wherever they run.
 */

export interface ContractArtifact {
  contractName: string;
  abi: InterfaceAbi;
  /** Creation code: deploy with the constructor arguments appended. */
  bytecode: string;
  /** The code as it sits on chain once deployed. */
  deployedBytecode: string;
}

export const SWEEP_DELEGATE_ARTIFACT: ContractArtifact = artifactOf(sweepDelegateJson);
export const MULTICALL3_ARTIFACT: ContractArtifact = artifactOf(multicall3Json);

export const SWEEP_DELEGATE_INTERFACE = new Interface(SWEEP_DELEGATE_ARTIFACT.abi);
export const MULTICALL3_INTERFACE = new Interface(MULTICALL3_ARTIFACT.abi);

function artifactOf(json: {
  contractName: string;
  abi: unknown[];
  bytecode: string;
  deployedBytecode: string;
}): ContractArtifact {
  return {
    contractName: json.contractName,
    abi: json.abi as InterfaceAbi,
    bytecode: json.bytecode,
    deployedBytecode: json.deployedBytecode,
  };
}
