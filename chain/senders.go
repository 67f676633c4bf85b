package chain

import (
	"math/big"
	"sync"

	"github.com/kassapay/kassa"
)

// Senders is every network's Sender, to read their gas reports from elsewhere
// (the settlement cost shown to payors, /readyz). Safe for concurrent use.
type Senders struct {
	mu sync.RWMutex
	m  map[string]*Sender
}

// Add registers s.
func (ss *Senders) Add(s *Sender) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m = map[string]*Sender{}
	}
	ss.m[key(s.Network.Environment, s.Network.Name)] = s
}

// All returns the senders.
func (ss *Senders) All() []*Sender {
	ss.mu.RLock()
	defer ss.mu.RUnlock()
	out := make([]*Sender, 0, len(ss.m))
	for _, s := range ss.m {
		out = append(out, s)
	}
	return out
}

// SweepCost is what settling one receipt of token costs on network in gas, in
// wei of the network's coin, from the sender's last gas report; false before a
// report or for a network without a sender.
func (ss *Senders) SweepCost(env kassa.Environment, network string, tokenID int64) (*big.Int, bool) {
	ss.mu.RLock()
	s := ss.m[key(env, network)]
	ss.mu.RUnlock()
	if s == nil {
		return nil, false
	}
	r := s.LastGasReport()
	if r == nil {
		return nil, false
	}
	c, ok := r.SweepCost[tokenID]
	return c, ok
}
