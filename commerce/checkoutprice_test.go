package commerce

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

func TestPriceEstimate(t *testing.T) {
	item := func(price kassa.Millis, qty int, fresh bool) LineItem {
		return LineItem{ProductID: "p", UnitPrice: price, Quantity: qty, Fresh: fresh}
	}
	tests := []struct {
		name  string
		items []LineItem
		want  EstimatePrice
	}{
		// 2 × 24.99 = 49.98; free shipping; tax 8.25 % = 4.12335 → 4.12; fee 2.5 % = 1.2495 → 1.25.
		{"free shipping", []LineItem{item(24_990, 2, false)}, EstimatePrice{49_980, 0, 4_120, 1_250, 55_350}},
		// 9.99: standard shipping 5.99; tax 0.824175 → 0.82; fee 0.24975 → minimum 0.50.
		{"small cart", []LineItem{item(9_990, 1, false)}, EstimatePrice{9_990, 5_990, 820, 500, 17_300}},
		// Exactly 35.00 ships free.
		{"threshold", []LineItem{item(35_000, 1, false)}, EstimatePrice{35_000, 0, 2_890, 880, 38_770}},
		// Fresh: never free, plus the cold-chain surcharge: 5.99 + 7.99.
		{"fresh", []LineItem{item(50_000, 1, true)}, EstimatePrice{50_000, 13_980, 4_130, 1_250, 69_360}},
		// Half a cent rounds up: 2.5 % of 0.20 = 0.005 → 0.01 (then the minimum).
		{"half cent", []LineItem{item(200, 1, false)}, EstimatePrice{200, 5_990, 20, 500, 6_710}},
		// One rounding, to the cent: 8.25 % of 0.54 = 0.04455 → 0.04 (via the milli, 0.045 → 0.05).
		{"no double rounding", []LineItem{item(540, 1, false)}, EstimatePrice{540, 5_990, 40, 500, 7_070}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PriceEstimate(tt.items); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestShippingOptions(t *testing.T) {
	opts := ShippingOptions([]LineItem{{UnitPrice: 10_000, Quantity: 1}})
	want := []ShippingOption{{"standard", "Standard shipping", 5_990, "5-7"}, {"expedited", "Expedited shipping", 12_990, "2-3"},
		{"overnight", "Overnight", 24_990, "1"}}
	for i := range want {
		if opts[i] != want[i] {
			t.Fatalf("option %d = %+v, want %+v", i, opts[i], want[i])
		}
	}
	if _, err := ShippingOptionByID(opts, "drone"); kassa.ErrorCode(err) != "invalid_shipping_option" {
		t.Fatalf("unknown option: %v", err)
	}
	e := &Estimate{Subtotal: 10_000, Tax: 830, CommerceFee: 500}
	if got := OrderTotal(e, opts[1]); got != 24_320 {
		t.Fatalf("order total %d", got)
	}
	if RefundQuote(24_320, 500) != 23_820 || RefundQuote(100, 500) != 0 {
		t.Fatal("refund quote")
	}
}

func TestCheckCartAndBuyer(t *testing.T) {
	ok := CartItem{ProductID: "B01", Quantity: 1, Retailer: RetailerAmazon}
	tests := []struct {
		name  string
		items []CartItem
		code  string
		param string
	}{
		{"ok", []CartItem{ok}, "", ""},
		{"empty", nil, "empty_cart", "items"},
		{"quantity 0", []CartItem{{ProductID: "B01", Quantity: 0, Retailer: RetailerAmazon}}, "invalid_quantity", "items[0].quantity"},
		{"quantity 100", []CartItem{{ProductID: "B01", Quantity: 100, Retailer: RetailerAmazon}}, "invalid_quantity", "items[0].quantity"},
		{"no product", []CartItem{{Quantity: 1, Retailer: RetailerAmazon}}, "invalid_product_id", "items[0].product_id"},
		{"twice", []CartItem{ok, ok}, "duplicate_item", "items[1].product_id"},
		{"unknown retailer", []CartItem{{ProductID: "B01", Quantity: 1, Retailer: "ebay"}}, "invalid_retailer", "items[0].retailer"},
		{"mixed", []CartItem{ok, {ProductID: "7", Quantity: 1, Retailer: RetailerShopify}}, "mixed_retailers", "items[1].retailer"},
	}
	for _, tt := range tests {
		err := CheckCart(tt.items)
		if kassa.ErrorCode(err) != tt.code || (err != nil && kassa.AsError(err).Param != tt.param) {
			t.Errorf("%s: %v, want %s on %s", tt.name, err, tt.code, tt.param)
		}
	}
	buyers := []struct {
		b    Buyer
		code string
	}{
		{Buyer{CustomerID: "c1"}, ""},
		{Buyer{WalletAddress: "0x52908400098527886E0F7030069857D2E4169EE7", WalletNetwork: "bsc"}, ""},
		{Buyer{}, "missing_param"},
		{Buyer{WalletAddress: "0x52908400098527886E0F7030069857D2E4169EE7"}, "missing_param"},
		{Buyer{WalletAddress: "0x12", WalletNetwork: "bsc"}, "invalid_address"},
		{Buyer{CustomerID: "c\x00"}, "invalid_customer_id"},
	}
	for _, tt := range buyers {
		if got := kassa.ErrorCode(CheckBuyer(tt.b)); got != tt.code {
			t.Errorf("%+v: %q, want %q", tt.b, got, tt.code)
		}
	}
}

func TestMillisNumberAndCents(t *testing.T) {
	tests := []struct {
		m             kassa.Millis
		number, cents string
	}{
		{19_990, "19.99", "19.99"}, {20_000, "20", "20.00"}, {5, "0.005", "0.01"}, {4, "0.004", "0.00"},
		{0, "0", "0.00"}, {-1_500, "-1.5", "-1.50"}, {-5, "-0.005", "-0.01"}, {1_000_000_000, "1000000", "1000000.00"},
	}
	for _, tt := range tests {
		if got := tt.m.Number(); got != tt.number {
			t.Errorf("%d.Number() = %q, want %q", tt.m, got, tt.number)
		}
		if got := tt.m.Cents(); got != tt.cents {
			t.Errorf("%d.Cents() = %q, want %q", tt.m, got, tt.cents)
		}
	}
}

func TestParsePrice(t *testing.T) {
	tests := []struct {
		in   string
		want kassa.Millis
		ok   bool
	}{
		{"12", 12_000, true}, {"12.5", 12_500, true}, {".5", 500, true}, {"5.", 5_000, true}, {"0", 0, true},
		{"19.999", 19_999, true}, {"0.0005", 1, true}, {"0.0004", 0, true}, {"9999999999.999", 9_999_999_999_999, true},
		{"", 0, false}, {".", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {"1e3", 0, false}, {" 1", 0, false},
		{"1.2.3", 0, false}, {"12345678901", 0, false}, {"1." + strings.Repeat("0", 70), 0, false}, {"NaN", 0, false},
	}
	for _, tt := range tests {
		got, ok := kassa.ParsePrice(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParsePrice(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
