// Package watch holds what the chain watchers (package chain) and the store
// share of a watch: how far each network's watcher got (Cursor) and the deposit
// addresses it looks for (Address). The blocks and transfers it finds are the
// domain's (kassa.BlockRef, kassa.Transfer). It imports only the standard
// library and the domain, so the store and package chain (whose tests run on
// the store) both can.
package watch
