package commerce

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

func validAddress() ShippingAddressInput {
	return ShippingAddressInput{FirstName: "ada", LastName: "LOVELACE", StreetAddress: "12  main street", City: "san francisco",
		State: "California", ZipCode: "941031234", Country: "U.S.A.", Phone: "(415) 555-0100", Email: "ada@example.com"}
}

func TestStandardizeAddress(t *testing.T) {
	got, err := StandardizeAddress(validAddress())
	if err != nil {
		t.Fatal(err)
	}
	want := ShippingAddressInput{FirstName: "Ada", LastName: "Lovelace", StreetAddress: "12 Main St", City: "San Francisco",
		State: "CA", ZipCode: "94103-1234", Country: "US", Phone: "+14155550100", Email: "ada@example.com"}
	if got != want {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	tests := []struct {
		name   string
		mod    func(a *ShippingAddressInput)
		field  string // the standardised field to check, or the error param
		want   string // its value, or the error code
		failed bool
	}{
		{"line 2 abbreviations", func(a *ShippingAddressInput) { a.AddressLine2 = "apartment 4b north" }, "line2", "Apt 4B N", false},
		{"state code any case", func(a *ShippingAddressInput) { a.State = "ny" }, "state", "NY", false},
		{"state with spaces", func(a *ShippingAddressInput) { a.State = "district of columbia" }, "state", "DC", false},
		{"zip 5", func(a *ShippingAddressInput) { a.ZipCode = "02139" }, "zip", "02139", false},
		{"zip+4 with space", func(a *ShippingAddressInput) { a.ZipCode = "02139 4307" }, "zip", "02139-4307", false},
		{"unicode name", func(a *ShippingAddressInput) { a.FirstName = "josé"; a.LastName = "NÚÑEZ" }, "name", "José Núñez", false},
		{"hyphenated name kept", func(a *ShippingAddressInput) { a.LastName = "Smith-Jones" }, "name", "Ada Smith-Jones", false},
		{"international phone", func(a *ShippingAddressInput) { a.Phone = "+44 20 7946 0958" }, "phone", "+442079460958", false},
		{"short local phone", func(a *ShippingAddressInput) { a.Phone = "555-0100" }, "phone", "5550100", false},
		{"no phone", func(a *ShippingAddressInput) { a.Phone = "" }, "phone", "", false},
		{"missing city", func(a *ShippingAddressInput) { a.City = "  " }, "address.city", "missing_param", true},
		{"bad state", func(a *ShippingAddressInput) { a.State = "Ontario" }, "address.state", "invalid_state", true},
		{"bad zip", func(a *ShippingAddressInput) { a.ZipCode = "9410" }, "address.zip_code", "invalid_zip_code", true},
		{"letters in zip", func(a *ShippingAddressInput) { a.ZipCode = "94I03" }, "address.zip_code", "invalid_zip_code", true},
		{"canada", func(a *ShippingAddressInput) { a.Country = "Canada" }, "address.country", "unsupported_country", true},
		{"gibberish country", func(a *ShippingAddressInput) { a.Country = "Narnia" }, "address.country", "invalid_country", true},
		{"phone letters", func(a *ShippingAddressInput) { a.Phone = "call me" }, "address.phone", "invalid_phone", true},
		{"bad email", func(a *ShippingAddressInput) { a.Email = "ada@" }, "address.email", "invalid_email", true},
		{"NUL", func(a *ShippingAddressInput) { a.LastName = "Love\x00lace" }, "address.last_name", "invalid_last_name", true},
		{"huge", func(a *ShippingAddressInput) { a.StreetAddress = strings.Repeat("x", 10_000) }, "address.street_address", "field_too_long", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := validAddress()
			tt.mod(&a)
			got, err := StandardizeAddress(a)
			if tt.failed {
				e := kassa.AsError(err)
				if err == nil || e.Code != tt.want || e.Param != tt.field {
					t.Fatalf("err %v, want %s on %s", err, tt.want, tt.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			v := map[string]string{"line2": got.AddressLine2, "state": got.State, "zip": got.ZipCode,
				"name": got.FirstName + " " + got.LastName, "phone": got.Phone}[tt.field]
			if v != tt.want {
				t.Fatalf("%s = %q, want %q", tt.field, v, tt.want)
			}
		})
	}
}
