// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Stand-in for Ethereum's USDT in tests: 6 decimals, `transfer`, `transferFrom` and
/// `approve` that return nothing (not even `true`), and a blacklist whose addresses cannot send,
/// as the real token's owner freezes addresses. Only the deployer mints and blacklists.
contract NoReturnToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 6;
    uint256 public totalSupply;
    address public immutable owner;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => bool) public isBlackListed;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event AddedBlackList(address indexed account);
    event RemovedBlackList(address indexed account);

    error NotOwner();
    error BlackListed(address account);
    error InsufficientBalance();
    error InsufficientAllowance();

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
        owner = msg.sender;
    }

    function transfer(address to, uint256 value) external {
        _move(msg.sender, to, value);
    }

    function transferFrom(address from, address to, uint256 value) external {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < value) revert InsufficientAllowance();
            allowance[from][msg.sender] = allowed - value;
        }
        _move(from, to, value);
    }

    function approve(address spender, uint256 value) external {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
    }

    function mint(address to, uint256 value) external onlyOwner {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function addBlackList(address account) external onlyOwner {
        isBlackListed[account] = true;
        emit AddedBlackList(account);
    }

    function removeBlackList(address account) external onlyOwner {
        isBlackListed[account] = false;
        emit RemovedBlackList(account);
    }

    function _move(address from, address to, uint256 value) private {
        if (isBlackListed[from]) revert BlackListed(from);
        uint256 balance = balanceOf[from];
        if (balance < value) revert InsufficientBalance();
        balanceOf[from] = balance - value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
