package main

import (
	"kassa/api/httpx"
	"kassa/chain"
	"kassa/hdwallet"
	"kassa/store"
	"kassa/webhook"
)

// The store and the wallet serve the chain's watchers and sender, the webhook
// workers and the API's idempotency keys, each of which defines what it needs
// where it uses it (packages chain, webhook and api/httpx). The store cannot
// import those packages (their tests run on the store), so the wiring checks
// here that the two sides still fit.
var (
	_ chain.ChainStore       = (*store.DB)(nil)
	_ chain.OwnWalletWatch   = (*store.DB)(nil)
	_ chain.PayoutStore      = (*store.DB)(nil)
	_ chain.KeyRing          = (*hdwallet.Wallet)(nil)
	_ webhook.Queue          = (*store.DB)(nil)
	_ httpx.IdempotencyStore = (*store.DB)(nil)
)
