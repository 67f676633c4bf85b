package main

import (
	"bytes"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// createFigures is what the store holds against what the clients were answered.
type createFigures struct {
	acknowledged, stored, duplicated, missing, wrongEvents int
}

// checkStored reads the store of cfg past the API: every acknowledged key has
// exactly its invoice (the id it was answered), no key has two invoices, and
// each invoice has exactly one invoice.created event.
func (l *createLoad) checkStored(t *testing.T, cfg store.Config) createFigures {
	t.Helper()
	db := storetest.RawDB(t, cfg)
	rows, err := db.Query(`SELECT id, description FROM invoices WHERE description LIKE 'fault %'`)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string][]string{}
	stored := 0
	for rows.Next() {
		var id, desc string
		if err := rows.Scan(&id, &desc); err != nil {
			t.Fatal(err)
		}
		byKey[desc[len("fault "):]] = append(byKey[desc[len("fault "):]], id)
		stored++
	}
	rows.Close()
	events := map[string]int{}
	rows, err = db.Query(`SELECT object_id FROM events WHERE type = 'invoice.created'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		events[id]++
	}
	rows.Close()

	l.mu.Lock()
	defer l.mu.Unlock()
	f := createFigures{acknowledged: len(l.acked), stored: stored}
	for key, ids := range byKey {
		if len(ids) > 1 {
			f.duplicated++
			t.Errorf("idempotency key %s has %d invoices: %v", key, len(ids), ids)
		}
		if _, ok := l.acked[key]; !ok {
			t.Errorf("invoice %v stored for key %s, which no client was answered", ids, key)
		}
		for _, id := range ids {
			if events[id] != 1 {
				f.wrongEvents++
				t.Errorf("invoice %s has %d invoice.created events, want 1", id, events[id])
			}
		}
	}
	for key, a := range l.acked {
		if ids := byKey[key]; len(ids) == 0 || ids[0] != a.invoiceID {
			f.missing++
			t.Errorf("key %s was answered 201 with %s, the store holds %v", key, a.invoiceID, ids)
		}
	}
	return f
}

// checkReplays sends every acknowledged create again: each must replay the first
// answer byte for byte. It returns how many replays it checked.
func (l *createLoad) checkReplays(t *testing.T) int {
	t.Helper()
	l.mu.Lock()
	acked := make(map[string]ack, len(l.acked))
	for k, a := range l.acked {
		acked[k] = a
	}
	l.mu.Unlock()
	for key, a := range acked {
		resp, raw, err := l.send(key)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(raw, a.body) {
			t.Errorf("replay of %s: status %d, replayed %q, body equal %v", key, resp.StatusCode,
				resp.Header.Get("Idempotent-Replayed"), bytes.Equal(raw, a.body))
		}
	}
	return len(acked)
}

// replayedFirst counts the keys whose first received answer was a replay: the
// create had committed but its answer was lost to a fault.
func (l *createLoad) replayedFirst() (replayed, retried int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.acked {
		if a.replayed {
			replayed++
		}
		if a.tries > 1 {
			retried++
		}
	}
	return replayed, retried
}
