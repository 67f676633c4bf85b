package store

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// PostgreSQL's wire formats of a column's value.
const (
	pgText   = pgtype.TextFormatCode
	pgBinary = pgtype.BinaryFormatCode
)

// scanRaw reads one row into dests (scan destinations of the types invoiceScan
// uses) from the values as PostgreSQL sent them (pgx's RawValues), without pgx's
// scan plans: those choose a plan per column and value, and reach a sql.Scanner
// through a converted copy, a tenth of a PostgreSQL list's CPU (issue 17,
// docs/performance.md). It takes text and varchar as their bytes, smallint,
// integer, bigint and boolean in either format, and refuses anything else, or
// NULL where the destination cannot hold it.
func scanRaw(fields []pgconn.FieldDescription, vals [][]byte, dests []any) error {
	if len(fields) != len(dests) || len(vals) != len(dests) {
		return fmt.Errorf("store: %d columns for %d destinations", len(vals), len(dests))
	}
	for i, d := range dests {
		if err := decodeRaw(fields[i], vals[i], d); err != nil {
			return fmt.Errorf("store: column %s: %w", fields[i].Name, err)
		}
	}
	return nil
}

var errRawNull = errors.New("NULL into a destination that cannot hold it")

// decodeRaw stores one value v of column f in dest; nil v is NULL.
func decodeRaw(f pgconn.FieldDescription, v []byte, dest any) error {
	switch d := dest.(type) {
	case *string:
		if v == nil {
			return errRawNull
		}
		if !isText(f.DataTypeOID) {
			return fmt.Errorf("type %d into a string", f.DataTypeOID)
		}
		*d = string(v)
	case *sql.Null[string]:
		if !isText(f.DataTypeOID) {
			return fmt.Errorf("type %d into a string", f.DataTypeOID)
		}
		*d = sql.Null[string]{V: string(v), Valid: v != nil}
	case *intCol:
		if v == nil {
			*d = intCol{}
			return nil
		}
		n, err := rawInt(f, v)
		if err != nil {
			return err
		}
		*d = intCol{V: n, Valid: true}
	case *bool:
		if v == nil {
			return errRawNull
		}
		b, err := rawBool(f, v)
		if err != nil {
			return err
		}
		*d = b
	default:
		return fmt.Errorf("no raw decoding into %T", dest)
	}
	return nil
}

// isText reports whether oid is text or varchar: their values are UTF-8 bytes in
// either format.
func isText(oid uint32) bool { return oid == pgtype.TextOID || oid == pgtype.VarcharOID }

// rawInt decodes a smallint, integer or bigint.
func rawInt(f pgconn.FieldDescription, v []byte) (int64, error) {
	switch f.DataTypeOID {
	case pgtype.Int8OID, pgtype.Int4OID, pgtype.Int2OID:
	default:
		return 0, fmt.Errorf("type %d into an integer", f.DataTypeOID)
	}
	if f.Format == pgText {
		return strconv.ParseInt(string(v), 10, 64)
	}
	switch len(v) {
	case 8:
		return int64(binary.BigEndian.Uint64(v)), nil
	case 4:
		return int64(int32(binary.BigEndian.Uint32(v))), nil
	case 2:
		return int64(int16(binary.BigEndian.Uint16(v))), nil
	}
	return 0, fmt.Errorf("an integer of %d bytes", len(v))
}

// rawBool decodes a boolean.
func rawBool(f pgconn.FieldDescription, v []byte) (bool, error) {
	if f.DataTypeOID != pgtype.BoolOID {
		return false, fmt.Errorf("type %d into a boolean", f.DataTypeOID)
	}
	switch {
	case f.Format == pgBinary && len(v) == 1:
		return v[0] != 0, nil
	case f.Format == pgText && len(v) == 1 && (v[0] == 't' || v[0] == 'f'):
		return v[0] == 't', nil
	}
	return false, fmt.Errorf("a boolean of %q", v)
}
