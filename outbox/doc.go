// Package outbox holds money moving out on chain (decisions.md, "Chains"), as
// the chain's sender and the store share it: a Payout is money Kassa owes
// someone on one network (a sweep of a deposit address's payments to the
// merchant, or a refund from the gas wallet or a deposit address), and a Tx is
// one transaction Kassa signs for it. A transaction is signed and stored with
// its nonce in one store transaction before it is ever broadcast, so a crash can
// only leave a stored transaction to broadcast again, never a transfer nobody
// knows of. It imports only the standard library and the domain, so the store
// and package chain (whose tests run on the store) both can.
package outbox
