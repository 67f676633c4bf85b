package store

import (
	"context"
	"testing"
)

// TestSQLiteMmapSize: Config.SQLiteMmapSize reaches the writer's connection and
// every reader's as PRAGMA mmap_size; the zero Config maps nothing.
func TestSQLiteMmapSize(t *testing.T) {
	for _, tt := range []struct {
		name string
		size int64
	}{
		{"none", 0},
		{"8 MiB", 8 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db, err := Open(ctx, Config{DataDir: t.TempDir(), SQLiteMmapSize: tt.size})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			for _, p := range []struct {
				name string
				pool *pool
			}{{"writer", db.w}, {"reader", db.r}} {
				var got int64
				if err := p.pool.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != tt.size {
					t.Errorf("%s: mmap_size = %d, want %d", p.name, got, tt.size)
				}
			}
		})
	}
}
