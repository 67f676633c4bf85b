package api_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/api/openapi/openapitest"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// sweep drives every operation of the OpenAPI document into the statuses its kind
// of operation answers, so each documented 400, 401, 403, 404, 413, 429, 500 and
// 503 is shown to be real (and its body checked by the harness).
type sweep struct {
	t       *testing.T
	e       *testEnv
	s       *shopper          // a mainnet-enabled merchant with a merchant key, a commerce key and a JWT
	plain   *merchant         // a merchant without mainnet
	session map[string]string // the payment session of one of s's invoices
	unknown map[string]string // a well-signed session that names no invoice
	spare   map[string]string // keys never used before the outage: "merchant", "commerce"
	invoice string            // that invoice's id
	outage  bool              // the store is gone: streams resume from an event id, which needs the store
}

// kindOf names an operation's credentials: none, jwt, ma (merchant key or JWT),
// any (either key scope or JWT), ca (commerce key), ps (payment session), ps+ma
// (verify: a session or a merchant credential), ws (stream token or key).
func kindOf(op openapitest.Operation) string {
	var alts []string
	for _, req := range op.Security {
		alts = append(alts, strings.Join(req, "+"))
	}
	switch strings.Join(alts, "|") {
	case "":
		return "none"
	case "DashboardJWT":
		return "jwt"
	case "ApiKey|DashboardJWT":
		return "ma"
	case "ApiKey|CommerceApiKey|DashboardJWT":
		return "any"
	case "CommerceApiKey|ApiKey":
		return "ca"
	case "PaymentSessionSignature+PaymentSessionToken":
		return "ps"
	case "PaymentSessionSignature+PaymentSessionToken|ApiKey|DashboardJWT":
		return "ps+ma"
	case "WebSocketToken|ApiKey|CommerceApiKey":
		return "ws"
	}
	return "unknown: " + strings.Join(alts, "|")
}

// path fills the operation's path parameters with ids that name nothing.
func sweepPath(op openapitest.Operation) string {
	r := strings.NewReplacer("{invoiceId}", kassa.NewUUID(), "{orderId}", kassa.NewUUID(), "{keyId}", kassa.NewUUID(),
		"{eventId}", "evt_"+strings.Repeat("0", 32), "{endpointId}", "we_"+strings.Repeat("0", 32), "{customerId}", "cus_sweep")
	p := r.Replace(op.Path)
	if op.ID == "searchProducts" {
		p += "?q=milk"
	}
	return p
}

// validBody is a body (and its headers) the operation accepts as far as decoding
// goes, so what the sweep provokes is decided elsewhere.
func validBody(op openapitest.Operation) (string, map[string]string) {
	idem := map[string]string{"Idempotency-Key": kassa.NewUUID()}
	switch op.ID {
	case "login":
		return `{"email": "nobody@example.com", "password": "not this one"}`, nil
	case "updateMerchant":
		return `{"company_name": "Sweep"}`, nil
	case "createInvoice":
		return `{"amount_usd": 1}`, idem
	case "createWebhookEndpoint":
		return `{"url": "https://hooks.example.com/sweep", "enabled_events": ["*"]}`, nil
	case "updateWebhookEndpoint":
		return `{"description": "sweep"}`, nil
	case "createPaymentAddress":
		return `{"token_id": 1}`, nil
	case "submitPayorForm":
		return `{"responses": []}`, nil
	case "setCustomerEmail":
		return `{"email": "payor@example.com"}`, nil
	case "postVerify":
		return `{"tx_hash": "0x` + strings.Repeat("ab", 32) + `", "network": "devchain"}`, nil
	case "createWebSocketToken":
		return `{"scope": "merchant"}`, nil
	case "checkoutEstimate":
		return `{"customer_id": "c1", "items": [{"product_id": "B000000009", "quantity": 1}]}`, nil
	case "checkoutAddress":
		return `{"customer_id": "c1", "estimateId": "` + kassa.NewUUID() + `", "address": {"first_name": "Ada", "last_name": "Lovelace",
			"street_address": "1 Main St", "city": "Austin", "state": "TX", "zip_code": "78701", "country": "US"}}`, nil
	case "checkoutInvoice":
		return `{"customer_id": "c1", "estimateId": "` + kassa.NewUUID() + `", "addressId": "` + kassa.NewUUID() + `"}`, nil
	case "cancelOrder", "createRefund":
		return `{}`, idem
	case "claimRefund":
		return `{"token": "x", "address": "0x52908400098527886E0F7030069857D2E4169EE7"}`, nil
	case "simulateOrder":
		return `{"transitionTo": "shipped"}`, nil
	}
	if op.Body {
		return `{}`, nil
	}
	return "", nil
}

// good returns the credentials the operation takes.
func (sw *sweep) good(op openapitest.Operation) map[string]string {
	switch kind := kindOf(op); kind {
	case "jwt", "ma", "any", "ps+ma":
		return sw.s.jwt()
	case "ca":
		if sw.outage {
			return map[string]string{"X-Commerce-Api-Key": sw.spare["commerce"]}
		}
		return map[string]string{"X-Commerce-Api-Key": sw.s.ckey}
	case "ps":
		return sw.session
	case "ws":
		scope := "merchant"
		if strings.Contains(op.Path, "commerce") {
			scope = "commerce"
		}
		if sw.outage {
			return withKey(sw.spare[scope])
		}
		if scope == "commerce" {
			return withKey(sw.s.ckey)
		}
		return withKey(sw.s.key)
	case "none":
		return map[string]string{}
	default:
		sw.t.Fatalf("%s: credentials of kind %s", op.ID, kind)
		return nil
	}
}

// send sends op with headers and body (validBody's when body is "valid").
func (sw *sweep) send(e *testEnv, op openapitest.Operation, path string, headers map[string]string, body string) *response {
	sw.t.Helper()
	h := map[string]string{}
	if body == "valid" {
		var extra map[string]string
		body, extra = validBody(op)
		for k, v := range extra {
			h[k] = v
		}
	}
	for k, v := range headers {
		h[k] = v
	}
	return e.do(request{method: op.Method, path: path, body: body, headers: h})
}

// expect checks that op answered want, when the document lists want for it.
func expect(t *testing.T, op openapitest.Operation, r *response, want string) {
	t.Helper()
	if got := r.status; want != "" && got != atoi(want) {
		t.Errorf("%s %s: %d, want %s: %.300s", op.Method, op.Path, got, want, r.body)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestOpenAPIStatusSweep: for each documented operation, the statuses its kind
// answers are provoked and must come: 401 without credentials, 413 for a body
// over 1 MiB, 403 with the wrong credential, 400 for an invalid x-environment or
// body, 404 for ids that name nothing, 429 once the credential's bucket is empty,
// and 500 (SQLite) or 503 (PostgreSQL) while the store is gone.
func TestOpenAPIStatusSweep(t *testing.T) {
	c, err := openapitest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	ops := c.Operations()
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		var proxy *pgProxy
		if cfg.DatabaseURL != "" {
			u, err := url.Parse(cfg.DatabaseURL)
			if err != nil {
				t.Fatal(err)
			}
			proxy = startPGProxy(t, u.Host)
			u.Host = proxy.ln.Addr().String()
			q := u.Query()
			q.Set("connect_timeout", "5")
			u.RawQuery = q.Encode()
			cfg.DatabaseURL = u.String()
		}
		db := storetest.Open(t, cfg)
		e := newEnvOn(t, db, nil, withCommerce(db, nil))
		s := e.newShopper()
		created := s.createInvoice(`{"amount_usd": 10}`)
		sw := &sweep{t: t, e: e, s: s, plain: e.newMerchant(false), session: session(created),
			invoice: created["invoice_id"].(string),
			spare: map[string]string{"merchant": s.createKey(`{"name": "spare"}`)["api_key"].(string),
				"commerce": s.createKey(`{"name": "spare", "scope": "commerce"}`)["api_key"].(string)}}
		token := kassa.NewSessionToken(kassa.NewUUID()) // names no invoice
		sw.unknown = map[string]string{"X-Session-Token": token, "X-Signature": kassa.NewSessionSigner(testSecret).Sign(token)}

		for _, op := range ops {
			kind, path := kindOf(op), sweepPath(op)
			if op.Statuses["401"] && kind != "none" {
				expect(t, op, sw.send(e, op, path, nil, map[bool]string{true: "{}"}[op.Body]), "401")
			}
			if op.Statuses["413"] {
				expect(t, op, sw.send(e, op, path, nil, `{"x": "`+strings.Repeat("a", 1<<20)+`"}`), "413")
			}
			if op.Statuses["403"] {
				if h := sw.wrong(op); h != nil {
					expect(t, op, sw.send(e, op, path, h, "valid"), "403")
				}
			}
			if op.Statuses["400"] {
				if p, h, body, ok := sw.invalid(op, path); ok {
					expect(t, op, sw.send(e, op, p, h, body), "400")
				}
			}
			if op.Statuses["404"] {
				h := sw.good(op)
				switch kind {
				case "ps":
					h = sw.unknown
				case "ps+ma":
					h = withKey(s.key)
				}
				expect(t, op, sw.send(e, op, path, h, "valid"), "404")
			}
		}

		// 429: an API over the same store whose buckets hold one token each.
		tight := newEnvOn(t, db, nil, withCommerce(db, nil), withLimits(httpx.RateLimits{Rate: 0.001, Burst: 1,
			CreateRate: 0.001, CreateBurst: 1, LoginRate: 0.001, LoginBurst: 1,
			PayorRate: 0.001, PayorBurst: 1, PayorAddrRate: 0.001, PayorAddrBurst: 1}))
		for _, prime := range []request{
			{method: "GET", path: "/api/v1/merchant", headers: s.jwt()},
			{method: "GET", path: "/api/v1/invoices", headers: withKey(s.key)},
			{method: "GET", path: "/api/commerce/status", headers: map[string]string{"X-Commerce-Api-Key": s.ckey}},
			{method: "POST", path: "/api/v1/auth/login", body: `{"email": "nobody@example.com", "password": "x"}`},
			{method: "GET", path: "/api/v1/payments/invoice", headers: sw.session}, // the client address's payor bucket
		} {
			if r := tight.do(prime); r.status == 429 {
				t.Fatalf("priming %s: %d", prime.path, r.status)
			}
		}
		for _, op := range ops {
			if op.Statuses["429"] {
				h := sw.good(op)
				if kindOf(op) == "ps+ma" {
					h = withKey(s.key)
				}
				expect(t, op, sw.send(tight, op, sweepPath(op), h, "valid"), "429")
			}
		}

		// The store goes away: 503 where an outage is recognised (PostgreSQL), 500
		// where it is not (a closed SQLite store).
		want := "500"
		if proxy != nil {
			want = "503"
			proxy.setDown(true)
		} else if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		sw.outage = true
		for _, op := range ops {
			if !op.Statuses[want] || op.ID == "getOpenAPIDocument" {
				continue
			}
			path := sweepPath(op)
			if kindOf(op) == "ws" {
				path += "?since=evt_" + strings.Repeat("0", 32)
			}
			expect(t, op, sw.send(e, op, path, sw.good(op), "valid"), want)
		}
	})
}
