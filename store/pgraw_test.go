package store

import (
	"database/sql"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestDecodeRaw: each destination type from each wire format PostgreSQL may send,
// NULL where it fits and where it does not, and types it must refuse.
func TestDecodeRaw(t *testing.T) {
	col := func(oid uint32, format int16) pgconn.FieldDescription {
		return pgconn.FieldDescription{Name: "c", DataTypeOID: oid, Format: format}
	}
	for _, tc := range []struct {
		name  string
		f     pgconn.FieldDescription
		v     []byte
		dest  any
		want  any // the destination's value after; nil: an error
		isErr bool
	}{
		{"text", col(pgtype.TextOID, pgText), []byte("héllo"), new(string), "héllo", false},
		{"varchar binary", col(pgtype.VarcharOID, pgBinary), []byte("x"), new(string), "x", false},
		{"empty text", col(pgtype.TextOID, pgText), []byte{}, new(string), "", false},
		{"NULL string", col(pgtype.TextOID, pgText), nil, new(string), nil, true},
		{"int into string", col(pgtype.Int8OID, pgBinary), []byte{0, 0, 0, 0, 0, 0, 0, 1}, new(string), nil, true},
		{"null text", col(pgtype.TextOID, pgText), nil, new(sql.Null[string]), sql.Null[string]{}, false},
		{"empty null text", col(pgtype.TextOID, pgText), []byte{}, new(sql.Null[string]), sql.Null[string]{Valid: true}, false},
		{"jsonb into null string", col(pgtype.JSONBOID, pgBinary), []byte{1, '{', '}'}, new(sql.Null[string]), nil, true},
		{"int8 binary", col(pgtype.Int8OID, pgBinary), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, new(intCol), intCol{V: -2, Valid: true}, false},
		{"int8 text", col(pgtype.Int8OID, pgText), []byte("-9223372036854775808"), new(intCol), intCol{V: -1 << 63, Valid: true}, false},
		{"int4 binary", col(pgtype.Int4OID, pgBinary), []byte{0x80, 0, 0, 0}, new(intCol), intCol{V: -1 << 31, Valid: true}, false},
		{"int2 binary", col(pgtype.Int2OID, pgBinary), []byte{0, 7}, new(intCol), intCol{V: 7, Valid: true}, false},
		{"NULL int", col(pgtype.Int8OID, pgBinary), nil, &intCol{V: 9, Valid: true}, intCol{}, false},
		{"int8 of 4 bytes", col(pgtype.Int8OID, pgBinary), []byte{0, 0, 0}, new(intCol), nil, true},
		{"int text not a number", col(pgtype.Int8OID, pgText), []byte("1e3"), new(intCol), nil, true},
		{"numeric into int", col(pgtype.NumericOID, pgText), []byte("1"), new(intCol), nil, true},
		{"bool binary true", col(pgtype.BoolOID, pgBinary), []byte{1}, new(bool), true, false},
		{"bool binary false", col(pgtype.BoolOID, pgBinary), []byte{0}, new(bool), false, false},
		{"bool text", col(pgtype.BoolOID, pgText), []byte("t"), new(bool), true, false},
		{"bool text other", col(pgtype.BoolOID, pgText), []byte("y"), new(bool), nil, true},
		{"NULL bool", col(pgtype.BoolOID, pgBinary), nil, new(bool), nil, true},
		{"int into bool", col(pgtype.Int2OID, pgBinary), []byte{0, 1}, new(bool), nil, true},
		{"unknown destination", col(pgtype.TextOID, pgText), []byte("x"), new([]byte), nil, true},
	} {
		err := decodeRaw(tc.f, tc.v, tc.dest)
		if (err != nil) != tc.isErr {
			t.Errorf("%s: error %v, want error %v", tc.name, err, tc.isErr)
			continue
		}
		if tc.isErr {
			continue
		}
		var got any
		switch d := tc.dest.(type) {
		case *string:
			got = *d
		case *sql.Null[string]:
			got = *d
		case *intCol:
			got = *d
		case *bool:
			got = *d
		}
		if got != tc.want {
			t.Errorf("%s: %#v, want %#v", tc.name, got, tc.want)
		}
	}
	if err := scanRaw([]pgconn.FieldDescription{col(pgtype.TextOID, pgText)}, [][]byte{[]byte("a")}, []any{new(string), new(string)}); err == nil {
		t.Error("scanRaw took one column into two destinations")
	}
}
