package commerce

import (
	"strings"
	"unicode"

	"github.com/kassapay/kassa"
)

// StandardizeAddress validates a US shipping address and puts it in the form
// carriers expect: collapsed spaces, names and streets in title case with USPS
// abbreviations, two-letter state codes, ZIP or ZIP+4, country "US", phone in
// E.164. The first problem is a 400 naming the field ("address.zip_code").
func StandardizeAddress(in ShippingAddressInput) (ShippingAddressInput, error) {
	fields := []struct {
		name     string
		v        *string
		required bool
	}{
		{"first_name", &in.FirstName, true}, {"last_name", &in.LastName, true},
		{"street_address", &in.StreetAddress, true}, {"address_line2", &in.AddressLine2, false},
		{"city", &in.City, true}, {"state", &in.State, true}, {"zip_code", &in.ZipCode, true},
		{"country", &in.Country, true}, {"phone", &in.Phone, false}, {"email", &in.Email, false},
	}
	for _, f := range fields {
		param := "address." + f.name
		*f.v = strings.Join(strings.Fields(*f.v), " ")
		switch {
		case len(*f.v) > 255:
			return in, kassa.Invalidf(param, "field_too_long", "%s must be at most 255 characters.", param)
		case !PlainText(*f.v):
			return in, kassa.Invalidf(param, "invalid_"+f.name, "%s must be text without control characters.", param)
		case f.required && *f.v == "":
			return in, kassa.Invalidf(param, "missing_param", "Missing required parameter: %s.", param)
		}
	}
	in.FirstName, in.LastName, in.City = titleCase(in.FirstName, nil), titleCase(in.LastName, nil), titleCase(in.City, nil)
	in.StreetAddress, in.AddressLine2 = titleCase(in.StreetAddress, uspsWords), titleCase(in.AddressLine2, uspsWords)
	country, err := standardCountry(in.Country)
	if err != nil {
		return in, err
	}
	in.Country = country
	if in.State, err = standardState(in.State); err != nil {
		return in, err
	}
	if in.ZipCode, err = standardZIP(in.ZipCode); err != nil {
		return in, err
	}
	if in.Phone != "" {
		if in.Phone, err = standardPhone(in.Phone); err != nil {
			return in, err
		}
	}
	if in.Email != "" {
		if err := kassa.CheckEmail("address.email", in.Email); err != nil {
			return in, err
		}
	}
	return in, nil
}

// uspsWords are the street words USPS abbreviates (Publication 28).
var uspsWords = map[string]string{
	"street": "St", "avenue": "Ave", "road": "Rd", "boulevard": "Blvd", "drive": "Dr", "lane": "Ln",
	"court": "Ct", "place": "Pl", "terrace": "Ter", "highway": "Hwy", "parkway": "Pkwy", "circle": "Cir",
	"apartment": "Apt", "suite": "Ste", "building": "Bldg", "floor": "Fl", "north": "N", "south": "S",
	"east": "E", "west": "W", "northeast": "NE", "northwest": "NW", "southeast": "SE", "southwest": "SW",
	"po": "PO", "ne": "NE", "nw": "NW", "se": "SE", "sw": "SW",
}

// titleCase capitalises each word (keeping "McDonald"-style inner capitals and
// words with digits upper-cased, "4b" → "4B") and applies abbrev to whole words.
func titleCase(s string, abbrev map[string]string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		lower := strings.ToLower(strings.TrimRight(w, ".,"))
		if a, ok := abbrev[lower]; ok {
			words[i] = a
			continue
		}
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			words[i] = strings.ToUpper(w)
			continue
		}
		words[i] = capitalizeParts(w)
	}
	return strings.Join(words, " ")
}

// capitalizeParts upper-cases the first letter of each hyphen or apostrophe
// separated part; a word typed all in one case is lower-cased first.
func capitalizeParts(w string) string {
	if w == strings.ToUpper(w) || w == strings.ToLower(w) {
		w = strings.ToLower(w)
	}
	rs := []rune(w)
	start := true
	for i, r := range rs {
		if start && unicode.IsLetter(r) {
			rs[i] = unicode.ToUpper(r)
		}
		start = r == '-' || r == '\''
	}
	return string(rs)
}

func standardCountry(s string) (string, error) {
	key := strings.ToLower(strings.ReplaceAll(s, ".", ""))
	switch key {
	case "us", "usa", "united states", "united states of america", "america":
		return "US", nil
	case "ca", "canada", "gb", "uk", "united kingdom", "great britain", "de", "germany", "mx", "mexico",
		"fr", "france", "au", "australia", "jp", "japan":
		return "", kassa.Invalidf("address.country", "unsupported_country", "Kassa's retailers ship to the United States only (US).")
	}
	return "", kassa.Invalidf("address.country", "invalid_country", "address.country must be a country code or name, such as US.")
}

func standardState(s string) (string, error) {
	key := strings.ToLower(strings.ReplaceAll(s, ".", ""))
	if len(key) == 2 {
		up := strings.ToUpper(key)
		for _, code := range usStates {
			if code == up {
				return up, nil
			}
		}
	} else if code, ok := usStates[key]; ok {
		return code, nil
	}
	return "", kassa.Invalidf("address.state", "invalid_state", "address.state must be a US state, as a two-letter code (CA) or its name.")
}

func standardZIP(s string) (string, error) {
	d := strings.NewReplacer("-", "", " ", "").Replace(s)
	if (len(d) == 5 || len(d) == 9) && kassa.AllDigits(d) && len(s)-len(d) <= 1 {
		if len(d) == 9 {
			return d[:5] + "-" + d[5:], nil
		}
		return d, nil
	}
	return "", kassa.Invalidf("address.zip_code", "invalid_zip_code", "address.zip_code must be a ZIP code: 12345 or 12345-6789.")
}

// standardPhone writes a US number (10 digits, or 11 starting with 1) in E.164,
// "+14155550100", and any other number of 7 to 15 digits as "+" and its digits
// when it was given with a "+", else as its digits. Letters and other marks are
// refused.
func standardPhone(s string) (string, error) {
	bad := kassa.Invalidf("address.phone", "invalid_phone", "address.phone must be a phone number: digits, spaces, +, (, ), - or dots.")
	var d strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			d.WriteRune(r)
		case strings.ContainsRune(" ()-.+", r):
		default:
			return "", bad
		}
	}
	n := d.String()
	plus := strings.HasPrefix(strings.TrimSpace(s), "+")
	switch {
	case len(n) == 11 && n[0] == '1':
		return "+" + n, nil
	case len(n) == 10 && !plus:
		return "+1" + n, nil
	case len(n) >= 7 && len(n) <= 15 && plus:
		return "+" + n, nil
	case len(n) >= 7 && len(n) <= 15:
		return n, nil
	}
	return "", bad
}

// usStates maps state names to USPS codes (the 50 states, DC and PR).
var usStates = map[string]string{
	"alabama": "AL", "alaska": "AK", "arizona": "AZ", "arkansas": "AR", "california": "CA", "colorado": "CO",
	"connecticut": "CT", "delaware": "DE", "district of columbia": "DC", "florida": "FL", "georgia": "GA",
	"hawaii": "HI", "idaho": "ID", "illinois": "IL", "indiana": "IN", "iowa": "IA", "kansas": "KS",
	"kentucky": "KY", "louisiana": "LA", "maine": "ME", "maryland": "MD", "massachusetts": "MA",
	"michigan": "MI", "minnesota": "MN", "mississippi": "MS", "missouri": "MO", "montana": "MT",
	"nebraska": "NE", "nevada": "NV", "new hampshire": "NH", "new jersey": "NJ", "new mexico": "NM",
	"new york": "NY", "north carolina": "NC", "north dakota": "ND", "ohio": "OH", "oklahoma": "OK",
	"oregon": "OR", "pennsylvania": "PA", "puerto rico": "PR", "rhode island": "RI", "south carolina": "SC",
	"south dakota": "SD", "tennessee": "TN", "texas": "TX", "utah": "UT", "vermont": "VT", "virginia": "VA",
	"washington": "WA", "west virginia": "WV", "wisconsin": "WI", "wyoming": "WY",
}
