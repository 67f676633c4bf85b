// Package devchain runs an embedded EVM dev chain for `kassa serve --dev`: the
// devnet network "devchain", built from go-ethereum's own node code (node, eth,
// and the simulated beacon of eth/catalyst that go-ethereum's dev mode and
// ethclient/simulated use) inside the kassa process.
//
// # The chain
//
// Chain id 1337, native token ETH. The genesis block funds the ten accounts of
// the public test mnemonic "test test test test test test test test test test
// test junk" (m/44'/60'/0'/0/i, the accounts of Hardhat and Anvil; see
// Accounts) with 10,000 ETH and 1,000,000 USDT and USDC each. The protocol
// rules are go-ethereum's dev chain config without forks that are not live on
// Ethereum mainnet, so gas costs are mainnet's (an ERC-20 transfer to a fresh
// address costs about 51,000 gas).
//
// Blocks come every Config.BlockTime, or, with BlockTime 0, as soon as a
// transaction arrives and on evm_mine. The HTTP JSON-RPC endpoint (Chain.URL)
// serves the standard eth_* methods (eth_getLogs and filters included),
// net_version and web3_clientVersion to any host and origin, so MetaMask in a
// browser can use it, plus the Hardhat/Anvil dev methods evm_mine, evm_snapshot
// and evm_revert. Chain.ReorgTo simulates reorganisations for tests.
//
// # The token contract
//
// USDT and USDC run a minimal ERC-20 hand-assembled in erc20.go with
// go-ethereum's bytecode builder (core/vm/program): there is no Solidity
// compiler in this build. Its code and storage are placed in the genesis
// block at USDTAddress and USDCAddress (no deployment transaction; account 0
// deploying a contract at nonce 0 or 1 would collide with them). It has
// name(), symbol(), decimals(), totalSupply(), balanceOf(address),
// transfer(address,uint256), allowance(address,address),
// approve(address,uint256) and transferFrom(address,address,uint256), emits
// Transfer and Approval, and reverts on an insufficient balance or allowance,
// a transfer to address 0, ether sent with a call, malformed arguments and
// unknown selectors. Balances and allowances use Solidity's storage layout
// (mappings at slots 0 and 1, totalSupply at slot 2).
//
// # Persistence
//
// The chain lives in Config.DataDir (go-ethereum's layout, database in
// geth/chaindata) and continues across Close and Start and across a kill -9.
// A directory that already holds a chain keeps its stored genesis block and
// config. For durability the node runs as an archive node on the hash state
// scheme with no dirty-trie cache and no snapshot layer: go-ethereum then
// writes each block's state to the database as it inserts the block, instead
// of keeping recent states in memory and rewinding to the last written one
// after a crash. And after every block, revert or reorganisation the chain
// syncs the database's write-ahead log, which the database otherwise buffers
// in process for up to 32 KiB. Archive mode also keeps every block's state, so
// evm_revert and ReorgTo can go back to any block. Delete the directory to
// start over.
package devchain
