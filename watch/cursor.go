package watch

import "github.com/kassapay/kassa"

// Cursor is how far a network's watcher got: the last block it processed
// completely, on the chain whose first block is Genesis (so a dev chain that was
// reset is noticed).
type Cursor struct {
	Network string
	Genesis string
	Block   kassa.BlockRef
}
