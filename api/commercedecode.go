package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"kassa"
	"kassa/commerce"
)

// Decoders of the commerce request bodies: strict JSON (unknown fields, wrong
// types and duplicates are 400 with the field's path), checked further by the
// domain.

// decodeFields parses a body and hands each field to set; set returns false for
// an unknown field.
func decodeFields(body []byte, set func(f field) (bool, error)) error {
	fields, err := parseObject(body, "")
	if err != nil {
		return err
	}
	for _, f := range fields {
		known, err := set(f)
		if err != nil {
			return err
		}
		if !known {
			return errUnknownParam(f.path)
		}
	}
	return nil
}

// decodeRequest reads the request body and decodes it with decode.
func decodeRequest[T any](r *http.Request, decode func([]byte) (T, error)) (T, error) {
	body, err := readBody(r)
	if err != nil {
		var zero T
		return zero, err
	}
	return decode(body)
}

// requireFields returns missing_param for the first of keys not in got.
func requireFields(got map[string]bool, keys ...string) error {
	for _, k := range keys {
		if !got[k] {
			return errMissing(k)
		}
	}
	return nil
}

// stringInto reads a string or null field into *dst ("" for null).
func stringInto(f field, dst *string) error {
	s, err := optString(f)
	if s != nil {
		*dst = *s
	}
	return err
}

// elements reads a JSON array field's elements.
func elements(f field) ([]field, error) {
	var raws []json.RawMessage
	if len(f.raw) == 0 || f.raw[0] != '[' || json.Unmarshal(f.raw, &raws) != nil {
		return nil, errInvalidType(f.path, "an array")
	}
	out := make([]field, len(raws))
	for i, raw := range raws {
		out[i] = field{key: f.key, path: f.path + "[" + strconv.Itoa(i) + "]", raw: bytes.TrimSpace(raw)}
	}
	return out, nil
}

func decodeEstimate(body []byte) (commerce.EstimateRequest, error) {
	var r commerce.EstimateRequest
	gotItems := false
	err := decodeFields(body, func(f field) (bool, error) {
		switch f.key {
		case "customer_id":
			return true, stringInto(f, &r.Buyer.CustomerID)
		case "wallet_address":
			return true, stringInto(f, &r.Buyer.WalletAddress)
		case "wallet_network":
			return true, stringInto(f, &r.Buyer.WalletNetwork)
		case "items":
			gotItems = true
			items, err := elements(f)
			if err != nil {
				return true, err
			}
			for _, it := range items {
				item, err := decodeCartItem(it)
				if err != nil {
					return true, err
				}
				r.Items = append(r.Items, item)
			}
			return true, nil
		}
		return false, nil
	})
	if err == nil && !gotItems {
		err = errMissing("items")
	}
	return r, err
}

func decodeCartItem(f field) (commerce.CartItem, error) {
	it := commerce.CartItem{Retailer: commerce.DefaultRetailer}
	fields, err := parseObject(f.raw, f.path)
	if err != nil {
		return it, err
	}
	got := map[string]bool{}
	for _, g := range fields {
		got[g.key] = true
		switch g.key {
		case "product_id":
			if it.ProductID, err = reqString(g); err != nil {
				return it, err
			}
		case "quantity":
			n, err := integer(g, "invalid_quantity")
			if err != nil {
				return it, err
			}
			if n < commerce.MinItemQuantity || n > commerce.MaxItemQuantity {
				return it, errInvalid(g.path, "invalid_quantity", g.path+" must be between 1 and 99.")
			}
			it.Quantity = int(n)
		case "retailer":
			if err := stringInto(g, &it.Retailer); err != nil {
				return it, err
			}
		default:
			return it, errUnknownParam(g.path)
		}
	}
	if err := requireFields(got, "product_id", "quantity"); err != nil {
		return it, errMissing(f.path + "." + kassa.AsError(err).Param)
	}
	return it, nil
}

func decodeCheckoutAddress(body []byte) (commerce.CheckoutAddressRequest, error) {
	var r commerce.CheckoutAddressRequest
	got := map[string]bool{}
	err := decodeFields(body, func(f field) (bool, error) {
		got[f.key] = true
		switch f.key {
		case "customer_id":
			return true, stringInto(f, &r.CustomerID)
		case "estimateId":
			return true, stringInto(f, &r.EstimateID)
		case "address":
			return true, decodeAddress(f, &r.Address)
		}
		return false, nil
	})
	if err != nil {
		return r, err
	}
	return r, requireFields(got, "estimateId", "address")
}

func decodeAddress(f field, a *commerce.AddressInput) error {
	fields, err := parseObject(f.raw, f.path)
	if err != nil {
		return err
	}
	targets := map[string]*string{
		"first_name": &a.FirstName, "last_name": &a.LastName, "street_address": &a.StreetAddress,
		"address_line2": &a.AddressLine2, "city": &a.City, "state": &a.State, "zip_code": &a.ZipCode,
		"country": &a.Country, "phone": &a.Phone, "email": &a.Email,
	}
	for _, g := range fields {
		dst, ok := targets[g.key]
		if !ok {
			return errUnknownParam(g.path)
		}
		if err := stringInto(g, dst); err != nil {
			return err
		}
	}
	return nil
}

func decodeOrderInvoice(body []byte) (commerce.OrderInvoiceRequest, error) {
	var r commerce.OrderInvoiceRequest
	got := map[string]bool{}
	err := decodeFields(body, func(f field) (bool, error) {
		got[f.key] = true
		switch f.key {
		case "customer_id":
			return true, stringInto(f, &r.CustomerID)
		case "estimateId":
			return true, stringInto(f, &r.EstimateID)
		case "addressId":
			return true, stringInto(f, &r.AddressID)
		case "shippingOptionId":
			return true, stringInto(f, &r.ShippingOptionID)
		case "webhookUrl": // deprecated and ignored (interface 2.10)
			if !f.null() {
				_, err := reqString(f)
				return true, err
			}
			return true, nil
		case "refundDestinationWalletAddressBsc":
			s, err := optString(f)
			r.RefundAddress = s
			return true, err
		}
		return false, nil
	})
	if err != nil {
		return r, err
	}
	return r, requireFields(got, "customer_id", "estimateId", "addressId")
}

func decodeCancel(body []byte) (commerce.CancelRequest, error) {
	var r commerce.CancelRequest
	if len(bytes.TrimSpace(body)) == 0 {
		return r, nil // the body is optional
	}
	err := decodeFields(body, func(f field) (bool, error) {
		switch f.key {
		case "refundDestinationWalletAddressBsc":
			s, err := optString(f)
			r.RefundAddress = s
			return true, err
		case "reason":
			return true, stringInto(f, &r.Reason)
		}
		return false, nil
	})
	if err == nil && len(r.Reason) > 500 {
		err = errInvalid("reason", "field_too_long", "reason must be at most 500 characters.")
	}
	return r, err
}

func decodeSimulate(body []byte) (commerce.SimulateRequest, error) {
	var r commerce.SimulateRequest
	err := decodeFields(body, func(f field) (bool, error) {
		switch f.key {
		case "transitionTo":
			s, err := reqString(f)
			r.TransitionTo = commerce.OrderStatus(s)
			return true, err
		case "walletAddress":
			s, err := optString(f)
			r.WalletAddress = s
			return true, err
		case "walletNetwork":
			s, err := optString(f)
			r.WalletNetwork = s
			return true, err
		case "tracking":
			if f.null() {
				return true, nil
			}
			t, err := decodeTracking(f)
			r.Tracking = t
			return true, err
		}
		return false, nil
	})
	if err != nil {
		return r, err
	}
	return r, commerce.CheckSimulate(r)
}

func decodeTracking(f field) (*commerce.Tracking, error) {
	fields, err := parseObject(f.raw, f.path)
	if err != nil {
		return nil, err
	}
	t := &commerce.Tracking{}
	targets := map[string]*string{
		"carrier": &t.Carrier, "trackingNumber": &t.TrackingNumber, "carrierTrackingUrl": &t.CarrierTrackingURL,
		"retailerTrackingNumber": &t.RetailerTrackingNumber, "retailerTrackingUrl": &t.RetailerTrackingURL,
	}
	for _, g := range fields {
		dst, ok := targets[g.key]
		if !ok {
			return nil, errUnknownParam(g.path)
		}
		if err := stringInto(g, dst); err != nil {
			return nil, err
		}
		if len(*dst) > 255 {
			return nil, errInvalid(g.path, "field_too_long", g.path+" must be at most 255 characters.")
		}
	}
	return t, nil
}
