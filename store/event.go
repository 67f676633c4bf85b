package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"kassa"
)

// insertEvent writes an event to the outbox through q, normally the transaction of
// the change it describes.
func insertEvent(ctx context.Context, q queryer, e *kassa.Event) error {
	var obj struct {
		ID *string `json:"id"`
	}
	_ = json.Unmarshal(e.Data, &obj)
	_, err := q.ExecContext(ctx, `INSERT INTO events (id, merchant_id, environment, type, object_id, created_at, data)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		e.ID, e.MerchantID, string(e.Environment), e.Type, nullString(obj.ID), micros(e.Created), string(e.Data))
	if err != nil {
		return fmt.Errorf("store: insert event %s: %w", e.Type, err)
	}
	return nil
}

// writeEvents builds events of the given types about object and writes them through q.
func writeEvents(ctx context.Context, q queryer, merchantID int64, env kassa.Environment, object any, now time.Time, types ...string) error {
	for _, typ := range types {
		e, err := kassa.NewEvent(merchantID, env, typ, object, now)
		if err != nil {
			return fmt.Errorf("store: event %s: %w", typ, err)
		}
		if err := insertEvent(ctx, q, e); err != nil {
			return err
		}
	}
	return nil
}

// Events returns the merchant's most recent events, newest first (at most limit;
// limit <= 0 means 100).
func (db *DB) Events(ctx context.Context, merchantID int64, limit int) ([]*kassa.Event, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := db.r.QueryContext(ctx, `SELECT id, merchant_id, environment, type, created_at, data
		FROM events WHERE merchant_id = $1 ORDER BY seq DESC LIMIT $2`, merchantID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list events: %w", err)
	}
	defer rows.Close()
	out := []*kassa.Event{}
	for rows.Next() {
		var (
			e       kassa.Event
			env     string
			created int64
			data    string
		)
		if err := rows.Scan(&e.ID, &e.MerchantID, &env, &e.Type, &created, &data); err != nil {
			return nil, fmt.Errorf("store: list events: %w", err)
		}
		e.Environment, e.Created, e.Data = kassa.Environment(env), fromMicros(created), json.RawMessage(data)
		out = append(out, &e)
	}
	return out, rows.Err()
}
