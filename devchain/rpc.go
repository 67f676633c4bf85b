package devchain

import (
	"encoding/json"
)

// evmAPI is the JSON-RPC namespace "evm": the Hardhat/Anvil dev methods. The
// RPC server names each method after the namespace and the Go method:
// evm_mine, evm_snapshot, evm_revert.
type evmAPI struct {
	chain *Chain
}

// Mine mines one block now and returns "0x0", as Hardhat does. Hardhat's
// optional timestamp argument is accepted and ignored.
func (api *evmAPI) Mine(_ *json.RawMessage) (string, error) {
	if err := api.chain.Mine(); err != nil {
		return "", err
	}
	return "0x0", nil
}

// Snapshot records the current head and returns its id, e.g. "0x1".
func (api *evmAPI) Snapshot() (string, error) {
	return api.chain.Snapshot()
}

// Revert goes back to snapshot id; false when the id is unknown or used.
func (api *evmAPI) Revert(id string) (bool, error) {
	return api.chain.Revert(id)
}
