package httpx

import (
	"testing"
	"unicode/utf8"
)

// canonCases are JSON values whose canonical form has something to get right.
var canonCases = []string{
	`{"amount_usd": 12.5, "description": "load test", "metadata": {"run": "kassa-load"}}`,
	`{"b":1,"a":2,"c":{"z":[3,{"y":null,"x":true}],"a":"s"}}`,
	`{"a":1,"a":2,"b":0,"a":3}`,
	`{"\u0062":1,"a":"\u0041\n\t\"<&>\u2028é"}`,
	`{"k":"<b>","é":"x","a\\b":"c"}`,
	`[ 1 , 2.50 , -0 , 1e3 , "x" , [ ] , { } ]`,
	` "just a string" `,
	`12.0`,
	`{"lone":"\ud800","pair":"\ud83d\ude00"}`,
	`{}`,
	`{"": 1, " ": 2}`,
	`{"metadata":{"\ue000":1,"😀":2,"a":3},"amount_usd":1}`,
	`{"x":"\u0007\b\f\u001f\u007f<>&\u2028\u2029"}`,
	`{"n":12345678901234567890.10,"e":-1E+3}`,
	`[1]]`,
	`1 2`,
}

// TestCanonicalBodyMatchesEncodingJSON: the canonical form is encoding/json's
// decode and marshal, byte for byte.
func TestCanonicalBodyMatchesEncodingJSON(t *testing.T) {
	for _, c := range canonCases {
		checkCanonical(t, []byte(c))
	}
}

func checkCanonical(t *testing.T, body []byte) {
	t.Helper()
	want, wantOK := canonicalJSON(body)
	got, ok := canonicalBody(body)
	if ok != wantOK || string(got) != string(want) {
		t.Fatalf("%q: canonical %s (%v), encoding/json's %s (%v)", body, got, ok, want, wantOK)
	}
}

// FuzzCanonicalBody checks the canonical form against encoding/json's on
// everything in valid UTF-8 the fuzzer finds.
func FuzzCanonicalBody(f *testing.F) {
	for _, c := range canonCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b := []byte(s); utf8.Valid(b) {
			checkCanonical(t, b)
		}
	})
}

// TestFingerprintKept: saved idempotency records hold fingerprints, so a
// retry after an upgrade must hash to what the version that saved it did.
// These were computed by the hand-written canonical form before jsontext
// replaced it (commit ea3e239).
func TestFingerprintKept(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"{\"amount_usd\": 12.5, \"description\": \"load test\", \"metadata\": {\"run\": \"kassa-load\"}}", "67492f6b4c2958b6190c6cd947b809bce8a67fb43bf7efc8f449661bfff27dfa"},
		{"{\"b\":1,\"a\":2,\"c\":{\"z\":[3,{\"y\":null,\"x\":true}],\"a\":\"s\"}}", "57645fb810339484e31916ac1b2808e21249d191dd0365531edfc06ba25fdc47"},
		{"{\"a\":1,\"a\":2,\"b\":0,\"a\":3}", "cc06b369e790cded883effea4557b3b0fcbb02b04a262b8e03029e3f0ad6b59e"},
		{"{\"\\u0062\":1,\"a\":\"\\u0041\\n\\t\\\"<&>\\u2028é\"}", "f5a4ebfcd5b2532777b7c66df2e15cc5dd00d2a048f849f9d0afea43d050df41"},
		{"{\"k\":\"<b>\",\"é\":\"x\",\"a\\\\b\":\"c\"}", "f0f3102894ec60af92f711a372996b4333b95e60b8c06be2e207e867912515ec"},
		{"[ 1 , 2.50 , -0 , 1e3 , \"x\" , [ ] , { } ]", "9ed47368f4155dbce20cbd528643a0ed568ca4e7bc495b5f9d9048b0cc73087a"},
		{" \"just a string\" ", "d3e512c0d5127bda648ac4944f2c2bee3086f6883ae256e9f814b372066f44fa"},
		{"12.0", "11a4b4e853af6fcb880ac4283151aee2d773bfdb7d3003412f362f8b6468f9a9"},
		{"{\"lone\":\"\\ud800\",\"pair\":\"\\ud83d\\ude00\"}", "140e706d126b25efe8b2a3c5ab75870e511cef7b07515ee1850d42990e2f0aab"},
		{"{}", "5c0cfd6eab9aa3d35eb463693fabd8b2721797328c6eb1800955a970e72dd9c1"},
		{"{\"\": 1, \" \": 2}", "bee93903df26a2f48f2486e87596930bf6f86900d471db137db185d6ba8334b7"},
		{"{\"metadata\":{\"\\ue000\":1,\"😀\":2,\"a\":3},\"amount_usd\":1}", "2d6ff8dda01203461691a3b74ca7fa81f95b1a15f6792dd5c444f7f50a5c1485"},
		{"{\"metadata\":{\"k\":\"v\",\"k\":\"w\"}}", "251e72283a08f19192ecca49f80297f1845fdc56304ba774d1ad5b277910b7f3"},
		{"{\"a\":\"\xff\"}", "b50e00f4323fd394647a613ed84a708a0e1f27d271917579f5b5c9d9c1240642"},
		{"not json", "c8a89b9c3d59eee68ffc527c1f343a668d9f874c741a44241677a5bc2a931f5d"},
		{"[1]]", "c0efab19441924751d1f7f57057bee279a7fc06c434ea5747dfc64c904a91797"},
		{"", "8d394733f74739485e075dbe23bc61fc435f6991df8eb57294402f15ceb06de8"},
		{"{\"amount_usd\":12345678901234567890.10,\"expires_in\":1e3}", "d236182665f56041b4e592c398b992bceaebd0c86a3c2a4bc272f480632cd1de"},
		{"{\"x\":\"\\u0007\\b\\f\\u001f\\u007f<>&\\u2028\\u2029\"}", "10814c7cb0159624839b46d0b5cd5dd0059c0246964757a0602932d0db9dd7f7"},
	} {
		if got := fingerprint("POST", "/api/v1/invoices", []byte(tc.body)); got != tc.want {
			t.Errorf("%q: fingerprint %s, saved records hold %s", tc.body, got, tc.want)
		}
	}
}

// BenchmarkFingerprint: a create's idempotency fingerprint, and encoding/json's
// decode and marshal, the definition of its canonical form.
func BenchmarkFingerprint(b *testing.B) {
	body := []byte(canonCases[0])
	b.Run("fingerprint", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fingerprint("POST", "/api/v1/invoices", body)
		}
	})
	b.Run("canonicalJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			canonicalJSON(body)
		}
	})
}
