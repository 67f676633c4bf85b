package deflate

import (
	"bytes"
	"compress/flate"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
)

// inflateRaw decodes a raw DEFLATE stream with compress/flate's reader and the
// dictionary, as Inflate does.
func inflateRaw(t testing.TB, stream []byte) []byte {
	t.Helper()
	r := flate.NewReaderDict(bytes.NewReader(stream), dict)
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("compress/flate cannot read the stream: %v", err)
	}
	return got
}

// encodeRaw is the raw stream the encoder writes for src, pieces of at most
// maxPiece bytes (deflateMaxPiece in Deflate), copied out of the encoder.
func encodeRaw(t testing.TB, src []byte, maxPiece int) []byte {
	t.Helper()
	e := getDeflateEncoder()
	defer putDeflateEncoder(e)
	return bytes.Clone(e.encode(src, maxPiece))
}

// randomBytes is n bytes that do not compress, the same for the same seed.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// jsonLines is about n bytes of invoices' and responses' JSON, one after the
// other, each with its own ids: compressible, not repetitive.
func jsonLines(t testing.TB, n int) []byte {
	t.Helper()
	var b []byte
	for len(b) < n {
		b = append(b, testdata(t, "invoice.json")...)
		b = append(b, testdata(t, "response.json")...)
	}
	return b[:n]
}

// TestDeflateEncoder: whatever the input, compress/flate's reader given the
// dictionary decodes the encoder's stream to the input, and incompressible input
// grows by no more than stored blocks' headers.
func TestDeflateEncoder(t *testing.T) {
	dict := []byte(dictV1)
	mostlyDict := bytes.ReplaceAll(dict[len(dict)-2000:], []byte(`"id":""`), []byte(`"id":"inv_0123456789abcdef"`))
	tests := []struct {
		name     string
		src      []byte
		maxPiece int  // 0: deflateMaxPiece
		stored   bool // incompressible: at most stored blocks' size
	}{
		{"empty", nil, 0, false},
		{"one byte", []byte("{"), 0, false},
		{"one byte not in the dictionary", []byte{0xfe}, 0, false},
		{"invoice event data", testdata(t, "invoice.json"), 0, false},
		{"create response", testdata(t, "response.json"), 0, false},
		{"mostly the dictionary's text", mostlyDict, 0, false},
		{"the dictionary's tail", dict[len(dict)-1000:], 0, false},
		{"the dictionary's last 3 bytes", dict[len(dict)-3:], 0, false},
		{"the whole dictionary", dict, 0, false},
		{"the dictionary twice", append(slices.Clone(dict), dict...), 0, false},
		{"100 KB of a", bytes.Repeat([]byte("a"), 100<<10), 0, false},
		{"a run across blocks", bytes.Repeat([]byte("ab"), 3<<20), 0, false},
		{"random bytes", randomBytes(3000, 1), 0, true},
		{"random bytes, 300 KB", randomBytes(300<<10, 2), 0, true},
		{"64 KB - 3 random", randomBytes(64<<10-3, 3), 0, true},
		{"64 KB + 3 random", randomBytes(64<<10+3, 4), 0, true},
		{"64 KB - 3 of JSON", jsonLines(t, 64<<10-3), 0, false},
		{"64 KB of JSON", jsonLines(t, 64<<10), 0, false},
		{"64 KB + 3 of JSON", jsonLines(t, 64<<10+3), 0, false},
		{"over 300 KB of JSON (several blocks)", jsonLines(t, 310<<10), 0, false},
		{"JSON then random then JSON", slices.Concat(jsonLines(t, 40<<10), randomBytes(40<<10, 5), jsonLines(t, 40<<10)), 0, false},
		{"pieces of 1000 bytes", jsonLines(t, 5000), 1000, false},
		{"pieces of 1 byte", []byte(`{"id":"x"}`), 1, false},
		{"pieces, random", randomBytes(10000, 6), 4096, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			maxPiece := cmpOr(tt.maxPiece, deflateMaxPiece)
			stream := encodeRaw(t, tt.src, maxPiece)
			if got := inflateRaw(t, stream); !bytes.Equal(got, tt.src) {
				t.Fatalf("decoded %d bytes, want the %d given", len(got), len(tt.src))
			}
			// A block of literals covers deflateBlockTokens bytes, or a piece.
			blocks := len(tt.src)/min(maxPiece, deflateBlockTokens) + 1
			if max := len(tt.src) + 5*blocks; tt.stored && len(stream) > max {
				t.Errorf("%d incompressible bytes took %d, want at most %d (stored)", len(tt.src), len(stream), max)
			}
			frame := Deflate(nil, tt.src)
			if got, err := Inflate(frame); err != nil || !bytes.Equal(got, tt.src) {
				t.Fatalf("Inflate(Deflate) = %d bytes, %v", len(got), err)
			}
		})
	}
}

// cmpOr is a, or b if a is 0.
func cmpOr(a, b int) int {
	if a == 0 {
		return b
	}
	return a
}

// TestDeflateSize: the documents Deflate is for come out no more than 5 % larger
// than compress/flate at BestCompression makes them (BenchmarkDeflateFlate9);
// a long stream of them, which the search is not tuned for, 8 %.
func TestDeflateSize(t *testing.T) {
	tests := []struct {
		name    string
		src     []byte
		percent int // larger than compress/flate's, at most
	}{
		{"invoice event data", testdata(t, "invoice.json"), 5},
		{"create response", testdata(t, "response.json"), 5},
		{"the whole dictionary", []byte(dictV1), 5},
		{"100 documents", jsonLines(t, 150<<10), 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ref bytes.Buffer
			w, err := flate.NewWriterDict(&ref, flate.BestCompression, dict)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = w.Write(tt.src)
			_ = w.Close()
			got := len(encodeRaw(t, tt.src, deflateMaxPiece))
			if want := ref.Len() + ref.Len()*tt.percent/100; got > want {
				t.Errorf("%d bytes deflated to %d, compress/flate makes %d: want at most %d", len(tt.src), got, ref.Len(), want)
			}
		})
	}
}

// TestDeflateAllocs: a Deflate allocates the frame it returns and nothing else,
// and nothing at all into a dst with room.
func TestDeflateAllocs(t *testing.T) {
	src := testdata(t, "response.json")
	Deflate(nil, src) // an encoder made and kept
	if n := testing.AllocsPerRun(100, func() { Deflate(nil, src) }); n != 1 {
		t.Errorf("Deflate(nil, src) allocates %v times, want 1", n)
	}
	dst := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { Deflate(dst, src) }); n != 0 {
		t.Errorf("Deflate(dst with room, src) allocates %v times, want 0", n)
	}
}

// TestDeflateEncoderReused: an encoder's state from earlier calls (its stale
// chain heads), or stamps about to wrap around, never leak into a stream.
func TestDeflateEncoderReused(t *testing.T) {
	e := getDeflateEncoder()
	defer putDeflateEncoder(e)
	docs := [][]byte{testdata(t, "response.json"), testdata(t, "invoice.json"), jsonLines(t, 70<<10), []byte("{}"), testdata(t, "response.json")}
	tests := []struct {
		name  string
		stamp uint32 // set before the calls; 0: as it is
	}{
		{"stamps as they are", 0},
		{"stamps about to wrap around", ^uint32(0) - 10<<10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.stamp != 0 {
				e.stamp = tt.stamp
			}
			for i, src := range docs {
				if got := inflateRaw(t, e.encode(src, deflateMaxPiece)); !bytes.Equal(got, src) {
					t.Fatalf("document %d: decoded %d bytes, want %d", i, len(got), len(src))
				}
			}
		})
	}
	if e.stamp > 1<<20 {
		t.Errorf("stamp %d: want started over", e.stamp)
	}
}

// TestDeflateStored: stored blocks, one or several (at most 65535 bytes each),
// are sized by deflateStoredBits as written, at any bit offset.
func TestDeflateStored(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		empties int // empty fixed blocks (10 bits each) before: the bit offset
	}{
		{"empty", 0, 0},
		{"small, aligned", 100, 0},
		{"small, offset 2", 100, 1},
		{"small, offset 6", 100, 3},
		{"exactly one block", deflateMaxStored, 2},
		{"one byte over", deflateMaxStored + 1, 1},
		{"three blocks", 3*deflateMaxStored - 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := randomBytes(tt.n, uint64(tt.n))
			var w bitWriter
			for range tt.empties {
				w.writeBits(deflateBlockHeader(false, 1), 3)
				w.writeCode(deflateFixedLit[deflateEOB])
			}
			before := len(w.out)*8 + int(w.nbits)
			want := deflateStoredBits(tt.n, w.bitOffset())
			w.writeStored(data, true)
			if got := len(w.out)*8 + int(w.nbits) - before; got != want {
				t.Errorf("stored %d bytes in %d bits, deflateStoredBits says %d", tt.n, got, want)
			}
			w.align()
			if got := inflateRaw(t, w.out); !bytes.Equal(got, data) {
				t.Fatalf("decoded %d bytes, want %d", len(got), tt.n)
			}
		})
	}
}
