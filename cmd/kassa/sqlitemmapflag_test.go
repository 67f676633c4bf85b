package main

import (
	"io"
	"testing"
)

// TestSQLiteMmapFlag: --sqlite-mmap-mib (and its environment twin) becomes the
// store's mapping in bytes; none by default; a negative size is refused.
func TestSQLiteMmapFlag(t *testing.T) {
	for _, tt := range []struct {
		name    string
		env     string
		args    []string
		want    int64
		wantErr bool
	}{
		{name: "default", want: 0},
		{name: "flag", args: []string{"--sqlite-mmap-mib", "256"}, want: 256 << 20},
		{name: "environment", env: "64", want: 64 << 20},
		{name: "flag over environment", env: "64", args: []string{"--sqlite-mmap-mib", "0"}, want: 0},
		{name: "negative", args: []string{"--sqlite-mmap-mib", "-1"}, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KASSA_SQLITE_MMAP_MIB", tt.env)
			f, err := parseServeFlags(tt.args, io.Discard)
			if tt.wantErr {
				if err == nil {
					t.Fatal("parseServeFlags: no error, want one")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.config().SQLiteMmapSize; got != tt.want {
				t.Errorf("SQLiteMmapSize = %d, want %d", got, tt.want)
			}
		})
	}
}
