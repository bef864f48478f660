// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The part of the Multicall3 interface the service uses (aggregate3, getEthBalance,
/// getBlockNumber), with the same selectors and encodings, written for the devnet: its runtime
/// code is put at the canonical address 0xcA11bde05977b3631167028862bE2a173976CA11, so balance
/// reads go through the same address and calls on the devnet as on the real networks.
contract Multicall3 {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    /// @notice A call that was not allowed to fail failed; its index in the batch.
    error CallFailed(uint256 index);

    /// @notice Makes every call in order; reverts the whole batch when a call that may not fail
    /// fails, otherwise reports each call's outcome and returned bytes.
    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory results) {
        results = new Result[](calls.length);
        for (uint256 index = 0; index < calls.length; index++) {
            Call3 calldata call = calls[index];
            (bool success, bytes memory returnData) = call.target.call(call.callData);
            if (!success && !call.allowFailure) revert CallFailed(index);
            results[index] = Result(success, returnData);
        }
    }

    function getEthBalance(address account) external view returns (uint256 balance) {
        balance = account.balance;
    }

    function getBlockNumber() external view returns (uint256 blockNumber) {
        blockNumber = block.number;
    }
}
