package commerce

import (
	"time"

	"github.com/kassapay/kassa"
)

// OrderJSON is the order snapshot of docs/api.md 2.11, camelCase like the rest of
// the commerce API. Money is in decimal strings of whole cents.
type OrderJSON struct {
	Object             string              `json:"object"`
	ID                 string              `json:"id"`
	OrderID            string              `json:"orderId"`
	InvoiceID          string              `json:"invoiceId"`
	MerchantID         int64               `json:"merchantId"`
	NetworkEnvironment kassa.Environment   `json:"networkEnvironment"`
	Retailer           string              `json:"retailer"`
	CreatedAt          string              `json:"createdAt"`
	UpdatedAt          string              `json:"updatedAt"`
	CustomerID         *string             `json:"customerId"`
	WalletAddress      *string             `json:"walletAddress"`
	WalletNetwork      *string             `json:"walletNetwork"`
	Status             OrderStatus         `json:"status"`
	Substatus          string              `json:"substatus"`
	Actions            orderActions        `json:"actions"`
	Timeline           []timelineJSON      `json:"timeline"`
	Payment            orderPaymentJSON    `json:"payment"`
	Fulfillment        fulfillmentJSON     `json:"fulfillment"`
	LineItems          []lineItemJSON      `json:"lineItems"`
	ShippingAddress    shippingAddressJSON `json:"shippingAddress"`
	ShippingOption     shippingOptionJSON  `json:"shippingOption"`
	CancellationStatus string              `json:"cancellationStatus"`
	RefundStatus       string              `json:"refundStatus"`
	SubtotalUsd        string              `json:"subtotalUsd"`
	ShippingUsd        string              `json:"shippingUsd"`
	TaxUsd             string              `json:"taxUsd"`
	TotalAmountUsd     string              `json:"totalAmountUsd"`
	CommerceFeeUsd     string              `json:"commerceFeeUsd"`
	Refund             refundJSON          `json:"refund"`
	RefundQuote        refundQuoteJSON     `json:"refundQuote"`
}

type orderActions struct {
	CanCancel bool `json:"canCancel"`
}

type timelineJSON struct {
	Status    OrderStatus `json:"status"`
	Timestamp string      `json:"timestamp"`
	Message   string      `json:"message"`
}

type orderPaymentJSON struct {
	Status     string         `json:"status"`
	TxHash     *string        `json:"txHash"`
	Settlement settlementJSON `json:"settlement"`
}

type settlementJSON struct {
	Status  *string `json:"status"`
	TxHash  *string `json:"txHash"`
	Network *string `json:"network"`
}

type fulfillmentJSON struct {
	Shipments []shipmentJSON `json:"shipments"`
}

type shipmentJSON struct {
	ShipmentID             string  `json:"shipmentId"`
	Carrier                string  `json:"carrier"`
	TrackingNumber         string  `json:"trackingNumber"`
	CarrierTrackingURL     *string `json:"carrierTrackingUrl"`
	DeliveryStatus         string  `json:"deliveryStatus"`
	RetailerTrackingNumber *string `json:"retailerTrackingNumber"`
	RetailerTrackingURL    *string `json:"retailerTrackingUrl"`
	ObtainedAt             string  `json:"obtainedAt"`
}

type lineItemJSON struct {
	ProductID string `json:"productId"`
	Title     string `json:"title"`
	ImageURL  string `json:"imageUrl"`
	Quantity  int    `json:"quantity"`
	Price     string `json:"price"`
	Status    string `json:"status"`
}

type shippingAddressJSON struct {
	AddressID    string  `json:"addressId"`
	FirstName    string  `json:"firstName"`
	LastName     string  `json:"lastName"`
	AddressLine1 string  `json:"addressLine1"`
	AddressLine2 *string `json:"addressLine2"`
	City         string  `json:"city"`
	State        string  `json:"state"`
	ZipCode      string  `json:"zipCode"`
	Country      string  `json:"country"`
	Email        *string `json:"email"`
	PhoneNumber  *string `json:"phoneNumber"`
	Validated    bool    `json:"validated"`
	ValidatedAt  string  `json:"validatedAt"`
}

type shippingOptionJSON struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Price         string `json:"price"`
	EstimatedDays string `json:"estimatedDays"`
}

type refundJSON struct {
	Status      string  `json:"status"`
	AmountUsd   *string `json:"amountUsd"`
	FeeUsd      *string `json:"feeUsd"`
	Destination *string `json:"destinationWalletAddressBsc"`
	TxHash      *string `json:"txHash"`
}

type refundQuoteJSON struct {
	OriginalAmountUsd string             `json:"originalAmountUsd"`
	FeeAmountUsd      string             `json:"feeAmountUsd"`
	RefundAmountUsd   string             `json:"refundAmountUsd"`
	RefundToken       refundTokenJSON    `json:"refundToken"`
	RefundDestination refundDestJSONAddr `json:"refundDestination"`
}

type refundTokenJSON struct {
	Network string `json:"network"`
	Symbol  string `json:"symbol"`
}

type refundDestJSONAddr struct {
	Network string  `json:"network"`
	Address *string `json:"address"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// JSON renders the order snapshot as of now.
func (o *Order) JSON(now time.Time) OrderJSON {
	j := OrderJSON{
		Object: "commerce_order", ID: o.ID, OrderID: o.ID, InvoiceID: o.InvoiceID, MerchantID: o.MerchantID,
		NetworkEnvironment: o.Environment, Retailer: o.Retailer,
		CreatedAt: kassa.FormatTime(o.CreatedAt), UpdatedAt: kassa.FormatTime(o.UpdatedAt),
		CustomerID: strOrNil(o.Buyer.CustomerID), WalletAddress: strOrNil(o.WalletAddress),
		WalletNetwork: strOrNil(o.WalletNetwork), Status: o.Status, Substatus: o.Substatus,
		Actions: orderActions{CanCancel: o.CanCancelNow()},
		Payment: orderPaymentJSON{Status: o.Payment.Status, TxHash: strOrNil(o.Payment.TxHash),
			Settlement: settlementJSON{Status: strOrNil(o.Payment.SettlementStatus),
				TxHash: strOrNil(o.Payment.SettlementTxHash), Network: strOrNil(o.Payment.SettlementNetwork)}},
		Fulfillment:        fulfillmentJSON{Shipments: []shipmentJSON{}},
		LineItems:          make([]lineItemJSON, len(o.Items)),
		CancellationStatus: o.Cancellation, RefundStatus: o.Refund.Status,
		SubtotalUsd: o.Subtotal.Cents(), ShippingUsd: o.Shipping.Price.Cents(), TaxUsd: o.Tax.Cents(),
		TotalAmountUsd: o.Total.Cents(), CommerceFeeUsd: o.CommerceFee.Cents(),
		ShippingOption: shippingOptionJSON{ID: o.Shipping.ID, Name: o.Shipping.Name, Price: o.Shipping.Price.Cents(),
			EstimatedDays: o.Shipping.EstimatedDays},
	}
	for _, t := range o.Timeline {
		j.Timeline = append(j.Timeline, timelineJSON{t.Status, kassa.FormatTime(t.Timestamp), t.Message})
	}
	for _, s := range o.Shipments {
		j.Fulfillment.Shipments = append(j.Fulfillment.Shipments, shipmentJSON{
			ShipmentID: s.ShipmentID, Carrier: s.Carrier, TrackingNumber: s.TrackingNumber,
			CarrierTrackingURL: strOrNil(s.CarrierTrackingURL), DeliveryStatus: s.DeliveryStatus,
			RetailerTrackingNumber: strOrNil(s.RetailerTrackingNumber), RetailerTrackingURL: strOrNil(s.RetailerTrackingURL),
			ObtainedAt: kassa.FormatTime(s.ObtainedAt)})
	}
	for i, it := range o.Items {
		j.LineItems[i] = lineItemJSON{ProductID: it.ProductID, Title: it.Title, ImageURL: it.ImageURL,
			Quantity: it.Quantity, Price: it.UnitPrice.Cents(), Status: it.Status}
	}
	a := o.Address.Address
	j.ShippingAddress = shippingAddressJSON{AddressID: o.Address.ID, FirstName: a.FirstName, LastName: a.LastName,
		AddressLine1: a.StreetAddress, AddressLine2: strOrNil(a.AddressLine2), City: a.City, State: a.State,
		ZipCode: a.ZipCode, Country: a.Country, Email: strOrNil(a.Email), PhoneNumber: strOrNil(a.Phone),
		Validated: true, ValidatedAt: kassa.FormatTime(o.Address.ValidatedAt)}
	j.Refund = refundJSON{Status: o.Refund.Status, Destination: strOrNil(o.RefundAddress), TxHash: strOrNil(o.Refund.TxHash)}
	if o.Refund.Status != RefundNone {
		amount, fee := o.Refund.Amount.Cents(), o.Refund.Fee.Cents()
		j.Refund.AmountUsd, j.Refund.FeeUsd, j.Refund.Destination = &amount, &fee, strOrNil(o.Refund.Destination)
	}
	q := o.RefundQuote(now)
	j.RefundQuote = refundQuoteJSON{OriginalAmountUsd: o.Total.Cents(), FeeAmountUsd: q.Fee.Cents(),
		RefundAmountUsd: q.Amount.Cents(), RefundToken: refundTokenJSON{q.Network, q.Symbol()},
		RefundDestination: refundDestJSONAddr{q.Network, strOrNil(q.Destination)}}
	return j
}

// MarshalJSON renders the order as its snapshot (as of its last change), so events
// carry the object the API returns.
func (o Order) MarshalJSON() ([]byte, error) {
	return kassa.MarshalJSON(o.JSON(o.UpdatedAt))
}
