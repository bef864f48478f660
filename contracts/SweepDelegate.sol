// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice What a deposit address exposes once it delegates to SweepDelegate (EIP-7702).
interface ISweepDelegate {
    function sweep(address token, bool toTreasury) external returns (uint256 amount);
}

interface IBalanceOf {
    function balanceOf(address account) external view returns (uint256);
}

/// @notice The EIP-7702 delegate of the service's deposit addresses. It can do one thing: move
/// an account's whole balance of a whitelisted token to the fixed hot wallet or treasury, when
/// the network's sweeper asks. Everything it knows is an immutable, part of its code: in a
/// delegated account's context the storage is the account's, which anyone who ever held the key
/// could have written, so nothing is read from storage.
contract SweepDelegate is ISweepDelegate {
    address public immutable SWEEPER;
    address public immutable HOT_WALLET;
    address public immutable TREASURY;
    /// @notice This contract's own address, fixed at deployment: in an account's context
    /// `address(this)` is the account.
    address public immutable SELF;

    address private immutable TOKEN_0;
    address private immutable TOKEN_1;
    address private immutable TOKEN_2;
    address private immutable TOKEN_3;

    /// @dev keccak256 of the delegation designator 0xef0100 ‖ SELF: EXTCODEHASH of an account
    /// that delegates here. One warm opcode instead of copying the code.
    bytes32 private immutable DELEGATED_CODE_HASH;

    uint256 private constant MAX_TOKENS = 4;

    event Swept(
        address indexed account,
        address indexed token,
        address indexed destination,
        uint256 amount
    );
    /// @notice The account's sweep reverted (e.g. the token froze the address); the batch went on.
    event SweepFailed(address indexed account, address indexed token);
    /// @notice The account does not delegate here, so calling it would move nothing.
    event SweepSkipped(address indexed account, address indexed token);

    error NotSweeper();
    error NotAllowedCaller();
    error TokenNotWhitelisted(address token);
    error TooManyTokens();
    error ZeroAddress();
    error TransferFailed(address token);

    constructor(
        address sweeper,
        address hotWallet,
        address treasury,
        address[] memory tokens_
    ) {
        if (sweeper == address(0) || hotWallet == address(0) || treasury == address(0)) {
            revert ZeroAddress();
        }
        if (tokens_.length > MAX_TOKENS) revert TooManyTokens();
        for (uint256 i = 0; i < tokens_.length; i++) {
            if (tokens_[i] == address(0)) revert ZeroAddress();
        }
        SWEEPER = sweeper;
        HOT_WALLET = hotWallet;
        TREASURY = treasury;
        SELF = address(this);
        // Unused slots stay address(0), which no call can pass as a token (checked in sweep).
        TOKEN_0 = tokens_.length > 0 ? tokens_[0] : address(0);
        TOKEN_1 = tokens_.length > 1 ? tokens_[1] : address(0);
        TOKEN_2 = tokens_.length > 2 ? tokens_[2] : address(0);
        TOKEN_3 = tokens_.length > 3 ? tokens_[3] : address(0);
        DELEGATED_CODE_HASH = keccak256(abi.encodePacked(hex"ef0100", address(this)));
    }

    /// @notice Sweeps `token` from every account that delegates here; called on this contract's
    /// own address by the sweeper. One account's failure (SweepFailed) or missing delegation
    /// (SweepSkipped) never fails the batch; a token that is not whitelisted does.
    function sweepMany(address[] calldata accounts, address token, bool toTreasury) external {
        if (msg.sender != SWEEPER) revert NotSweeper();
        // Checked here too: each account's sweep would revert and read as a frozen address.
        if (!isWhitelisted(token)) revert TokenNotWhitelisted(token);
        address destination = toTreasury ? TREASURY : HOT_WALLET;
        for (uint256 i = 0; i < accounts.length; i++) {
            address account = accounts[i];
            // An account without our code would accept the call, do nothing and look swept.
            if (account.codehash != DELEGATED_CODE_HASH) {
                emit SweepSkipped(account, token);
                continue;
            }
            try ISweepDelegate(account).sweep(token, toTreasury) returns (uint256 amount) {
                emit Swept(account, token, destination, amount);
            } catch {
                emit SweepFailed(account, token);
            }
        }
    }

    /// @notice Runs in a delegating account's context: moves its whole balance of `token` to
    /// the hot wallet or the treasury. Returns the amount moved (0 when there was nothing).
    function sweep(address token, bool toTreasury) external returns (uint256 amount) {
        if (msg.sender != SELF && msg.sender != SWEEPER) revert NotAllowedCaller();
        if (!isWhitelisted(token)) revert TokenNotWhitelisted(token);
        amount = IBalanceOf(token).balanceOf(address(this));
        if (amount == 0) return 0;
        address destination = toTreasury ? TREASURY : HOT_WALLET;
        // Low level: USDT's transfer returns nothing, which a typed call would fail to decode.
        (bool success, bytes memory returned) = token.call(
            abi.encodeWithSelector(0xa9059cbb, destination, amount)
        );
        bool accepted = success &&
            (returned.length == 0 || (returned.length == 32 && abi.decode(returned, (bool))));
        if (!accepted) revert TransferFailed(token);
    }

    function isWhitelisted(address token) public view returns (bool) {
        if (token == address(0)) return false;
        return token == TOKEN_0 || token == TOKEN_1 || token == TOKEN_2 || token == TOKEN_3;
    }

    /// @notice The whitelisted tokens, in constructor order.
    function whitelistedTokens() external view returns (address[] memory list) {
        address[4] memory all = [TOKEN_0, TOKEN_1, TOKEN_2, TOKEN_3];
        uint256 count = 0;
        while (count < MAX_TOKENS && all[count] != address(0)) count++;
        list = new address[](count);
        for (uint256 i = 0; i < count; i++) list[i] = all[i];
    }
}
