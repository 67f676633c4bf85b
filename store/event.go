package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
)

var _ kassa.EventService = (*DB)(nil)

// insertEvent writes an event to the outbox through q, normally the transaction of
// the change it describes, and queues its webhook deliveries there too. z is its
// data deflated (kassa.Deflate), or nil to deflate it here.
func insertEvent(ctx context.Context, q queryer, e *kassa.Event, z []byte, objectID *string) error {
	if objectID == nil {
		var obj struct {
			ID *string `json:"id"`
		}
		_ = json.Unmarshal(e.Data, &obj)
		objectID = obj.ID
	}
	query, args := eventInsert(e, z, objectID)
	_, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("store: insert event %s: %w", e.Type, err)
	}
	return nil
}

// eventInsert returns the statement that inserts e and its arguments. The data is
// stored deflated in data_z, data left empty (migration 0017): z, or deflated here
// when z is nil. Callers outside a transaction deflate first (CreateInvoice), so
// SQLite's single writer does not wait on it.
func eventInsert(e *kassa.Event, z []byte, objectID *string) (string, []any) {
	if z == nil {
		z = kassa.Deflate(nil, e.Data)
	}
	return `INSERT INTO events (id, merchant_id, environment, type, object_id, created_at, data, data_z)
		VALUES ($1, $2, $3, $4, $5, $6, '', $7)`,
		[]any{e.ID, e.MerchantID, string(e.Environment), e.Type, nullString(objectID), micros(e.Created), z}
}

// eventData returns an event's JSON as stored: data_z inflated, or data for rows
// written before 0017 (data_z NULL).
func eventData(data string, z []byte) (json.RawMessage, error) {
	if z == nil {
		return json.RawMessage(data), nil
	}
	return kassa.Inflate(z)
}

// writeEvents builds events of the given types about object and writes them, with a
// webhook delivery for every enabled endpoint that wants each, in q.
func writeEvents(ctx context.Context, q txq, merchantID int64, env kassa.Environment, object any, now time.Time, types ...string) error {
	endpoints, err := enabledEndpoints(ctx, q, merchantID, env)
	if err != nil {
		return err
	}
	for _, typ := range types {
		e, err := kassa.NewEvent(merchantID, env, typ, object, now)
		if err != nil {
			return fmt.Errorf("store: event %s: %w", typ, err)
		}
		if err := insertEvent(ctx, q, e, nil, nil); err != nil {
			return err
		}
		for _, ep := range endpoints {
			if ep.Wants(typ) {
				if _, err := insertDelivery(ctx, q, ep, e, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// writeEvent writes a built event about object objectID, its data deflated in z
// (nil: deflated here), with a webhook delivery for every enabled endpoint that
// wants it, in q.
func writeEvent(ctx context.Context, q txq, e *kassa.Event, z []byte, objectID string) error {
	endpoints, err := enabledEndpoints(ctx, q, e.MerchantID, e.Environment)
	if err != nil {
		return err
	}
	if err := insertEvent(ctx, q, e, z, &objectID); err != nil {
		return err
	}
	for _, ep := range endpoints {
		if ep.Wants(e.Type) {
			if _, err := insertDelivery(ctx, q, ep, e, e.Created); err != nil {
				return err
			}
		}
	}
	return nil
}

// eventColumns are the columns scanEvent reads; the feed position is per engine.
func (db *DB) eventColumns() string {
	pos := "0, seq"
	if db.engine == EnginePostgres {
		pos = "tx::text::bigint, seq"
	}
	return pos + ", id, merchant_id, environment, type, created_at, data, data_z"
}

func scanEvent(s scanner) (*kassa.Event, error) {
	var (
		e       kassa.Event
		env     string
		created int64
		data    string
		z       []byte
	)
	if err := s.Scan(&e.Pos.Tx, &e.Pos.Seq, &e.ID, &e.MerchantID, &env, &e.Type, &created, &data, &z); err != nil {
		return nil, err
	}
	var err error
	if e.Data, err = eventData(data, z); err != nil {
		return nil, fmt.Errorf("event %s: %w", e.ID, err)
	}
	e.Environment, e.Created = kassa.Environment(env), fromMicros(created)
	return &e, nil
}

// queryEvents runs an event query and scans every row.
func (db *DB) queryEvents(ctx context.Context, q string, args ...any) ([]*kassa.Event, error) {
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: events: %w", err)
	}
	defer rows.Close()
	out := []*kassa.Event{}
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, fmt.Errorf("store: events: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: events: %w", err)
	}
	return out, nil
}

// scopeTypes returns the known event types that scope may see and that match the
// patterns (all when there are none).
func scopeTypes(scope kassa.Scope, patterns []string) []string {
	var out []string
	for _, t := range kassa.EventTypes {
		if kassa.EventScope(t) == scope && kassa.MatchEventTypes(patterns, t) {
			out = append(out, t)
		}
	}
	return out
}

// Event returns one event of the merchant in env that scope may see.
func (db *DB) Event(ctx context.Context, merchantID int64, env kassa.Environment, scope kassa.Scope, id string) (*kassa.Event, error) {
	e, err := db.anyEvent(ctx, merchantID, env, id)
	if err == nil && kassa.EventScope(e.Type) != scope {
		return nil, kassa.NotFound("event")
	}
	return e, err
}

// anyEvent returns one event of the merchant in env, whatever its scope.
func (db *DB) anyEvent(ctx context.Context, merchantID int64, env kassa.Environment, id string) (*kassa.Event, error) {
	if !kassa.ValidEventID(id) {
		return nil, kassa.NotFound("event")
	}
	es, err := db.queryEvents(ctx, "SELECT "+db.eventColumns()+
		" FROM events WHERE id = $1 AND merchant_id = $2 AND environment = $3", id, merchantID, string(env))
	if err != nil {
		return nil, err
	}
	if len(es) == 0 {
		return nil, kassa.NotFound("event")
	}
	return es[0], nil
}
