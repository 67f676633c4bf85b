package commerceapi

import (
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/commerce"
)

// Decoders of the commerce request bodies: strict JSON (unknown fields, wrong
// types and duplicates are 400 with the field's path), checked further by the
// domain.

func decodeEstimate(body []byte) (commerce.EstimateRequest, error) {
	var r commerce.EstimateRequest
	gotItems := false
	err := httpx.DecodeFields(body, func(f httpx.Field) (bool, error) {
		switch f.Key {
		case "customer_id":
			return true, httpx.StringInto(f, &r.Buyer.CustomerID)
		case "wallet_address":
			return true, httpx.StringInto(f, &r.Buyer.WalletAddress)
		case "wallet_network":
			return true, httpx.StringInto(f, &r.Buyer.WalletNetwork)
		case "items":
			gotItems = true
			items, err := httpx.Elements(f)
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
		err = httpx.ErrMissing("items")
	}
	return r, err
}

func decodeCartItem(f httpx.Field) (commerce.CartItem, error) {
	it := commerce.CartItem{Retailer: commerce.DefaultRetailer}
	got := map[string]bool{}
	err := httpx.DecodeObject(f, func(g httpx.Field) (known bool, err error) {
		got[g.Key] = true
		switch g.Key {
		case "product_id":
			it.ProductID, err = httpx.ReqString(g)
		case "quantity":
			n, err := httpx.Integer(g, "invalid_quantity")
			if err != nil {
				return true, err
			}
			if n < commerce.MinItemQuantity || n > commerce.MaxItemQuantity {
				return true, httpx.ErrInvalid(g.Path, "invalid_quantity", g.Path+" must be between 1 and 99.")
			}
			it.Quantity = int(n)
		case "retailer":
			err = httpx.StringInto(g, &it.Retailer)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return it, err
	}
	if err := httpx.RequireFields(got, "product_id", "quantity"); err != nil {
		return it, httpx.ErrMissing(f.Path + "." + kassa.AsError(err).Param)
	}
	return it, nil
}

func decodeCheckoutAddress(body []byte) (commerce.CheckoutAddressRequest, error) {
	var r commerce.CheckoutAddressRequest
	got := map[string]bool{}
	err := httpx.DecodeFields(body, func(f httpx.Field) (bool, error) {
		got[f.Key] = true
		switch f.Key {
		case "customer_id":
			return true, httpx.StringInto(f, &r.CustomerID)
		case "estimateId":
			return true, httpx.StringInto(f, &r.EstimateID)
		case "address":
			return true, decodeAddress(f, &r.Address)
		}
		return false, nil
	})
	if err != nil {
		return r, err
	}
	return r, httpx.RequireFields(got, "estimateId", "address")
}

func decodeAddress(f httpx.Field, a *commerce.ShippingAddressInput) error {
	targets := map[string]*string{
		"first_name": &a.FirstName, "last_name": &a.LastName, "street_address": &a.StreetAddress,
		"address_line2": &a.AddressLine2, "city": &a.City, "state": &a.State, "zip_code": &a.ZipCode,
		"country": &a.Country, "phone": &a.Phone, "email": &a.Email,
	}
	return httpx.DecodeObject(f, func(g httpx.Field) (bool, error) {
		dst, ok := targets[g.Key]
		if !ok {
			return false, nil
		}
		return true, httpx.StringInto(g, dst)
	})
}

func decodeOrderInvoice(body []byte) (commerce.OrderInvoiceRequest, error) {
	var r commerce.OrderInvoiceRequest
	got := map[string]bool{}
	err := httpx.DecodeFields(body, func(f httpx.Field) (bool, error) {
		got[f.Key] = true
		switch f.Key {
		case "customer_id":
			return true, httpx.StringInto(f, &r.CustomerID)
		case "estimateId":
			return true, httpx.StringInto(f, &r.EstimateID)
		case "addressId":
			return true, httpx.StringInto(f, &r.AddressID)
		case "shippingOptionId":
			return true, httpx.StringInto(f, &r.ShippingOptionID)
		case "webhookUrl": // deprecated and ignored (docs/api.md 2.10)
			if !f.Null() {
				_, err := httpx.ReqString(f)
				return true, err
			}
			return true, nil
		case "refundDestinationWalletAddressBsc":
			s, err := httpx.OptString(f)
			r.RefundAddress = s
			return true, err
		}
		return false, nil
	})
	if err != nil {
		return r, err
	}
	return r, httpx.RequireFields(got, "customer_id", "estimateId", "addressId")
}

// decodeCancel reads a cancel body, which is optional.
func decodeCancel(req *http.Request) (commerce.CancelRequest, error) {
	var r commerce.CancelRequest
	err := httpx.DecodeRequest(req, httpx.BodyOptionalBlank, func(f httpx.Field) (bool, error) {
		switch f.Key {
		case "refundDestinationWalletAddressBsc":
			s, err := httpx.OptString(f)
			r.RefundAddress = s
			return true, err
		case "reason":
			return true, httpx.StringInto(f, &r.Reason)
		}
		return false, nil
	})
	if err == nil && len(r.Reason) > 500 {
		err = httpx.ErrInvalid("reason", "field_too_long", "reason must be at most 500 characters.")
	}
	return r, err
}

func decodeSimulate(body []byte) (commerce.SimulateRequest, error) {
	var r commerce.SimulateRequest
	err := httpx.DecodeFields(body, func(f httpx.Field) (bool, error) {
		switch f.Key {
		case "transitionTo":
			s, err := httpx.ReqString(f)
			r.TransitionTo = commerce.OrderStatus(s)
			return true, err
		case "walletAddress":
			s, err := httpx.OptString(f)
			r.WalletAddress = s
			return true, err
		case "walletNetwork":
			s, err := httpx.OptString(f)
			r.WalletNetwork = s
			return true, err
		case "tracking":
			if f.Null() {
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

func decodeTracking(f httpx.Field) (*commerce.Tracking, error) {
	t := &commerce.Tracking{}
	targets := map[string]*string{
		"carrier": &t.Carrier, "trackingNumber": &t.TrackingNumber, "carrierTrackingUrl": &t.CarrierTrackingURL,
		"retailerTrackingNumber": &t.RetailerTrackingNumber, "retailerTrackingUrl": &t.RetailerTrackingURL,
	}
	err := httpx.DecodeObject(f, func(g httpx.Field) (bool, error) {
		dst, ok := targets[g.Key]
		if !ok {
			return false, nil
		}
		if err := httpx.StringInto(g, dst); err != nil {
			return true, err
		}
		if len(*dst) > 255 {
			return true, httpx.ErrInvalid(g.Path, "field_too_long", g.Path+" must be at most 255 characters.")
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}
