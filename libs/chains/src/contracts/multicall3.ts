/**
 * Where Multicall3 lives on every network the service supports (deployed by the same keyless
 * transaction everywhere); the devnet puts contracts/Multicall3.sol's runtime code there too.
 */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';
