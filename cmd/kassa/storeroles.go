package main

import (
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/hdwallet"
	"github.com/kassapay/kassa/merchants"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/signin"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/webhook"
	"github.com/kassapay/kassa/worker"
)

// The store and the wallet serve interfaces their consumers declare where they
// use them: the chain's watchers and sender, the webhook workers, the API's
// idempotency keys, merchant accounts, refunds, dashboard sign-ins and leases,
// and the wallet's keys for the sender. The store cannot import chain, webhook or
// api/httpx (their in-package tests run on the store), so the wiring checks here,
// at compile time, that the two sides still fit; the others' checks sit beside
// them.
var (
	_ chain.ChainStore             = (*store.DB)(nil)
	_ chain.OwnWalletWatch         = (*store.DB)(nil)
	_ chain.PayoutStore            = (*store.DB)(nil)
	_ chain.KeyRing                = (*hdwallet.Wallet)(nil)
	_ webhook.Queue                = (*store.DB)(nil)
	_ httpx.IdempotencyStore       = (*store.DB)(nil)
	_ merchants.Store              = (*store.DB)(nil)
	_ refund.Store                 = (*store.DB)(nil)
	_ signin.DashboardSessionStore = (*store.DB)(nil)
	_ worker.Leaser                = (*store.DB)(nil)
)
