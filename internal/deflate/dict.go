package deflate

// dictV1 is the preset dictionary of formatV1: the JSON Kassa keeps most
// (events' data, saved responses), one object of each kind with its usual values
// and empty ids, separated by newlines, the most frequent last (DEFLATE codes
// nearer matches in fewer bits). Frames written with it are stored for good: it
// must never change (TestDictionaryFixed pins it); a better dictionary is a new
// format.
const dictV1 = "" +
	// A webhook endpoint (webhook_endpoint.disabled).
	`{"id":"we_","object":"webhook_endpoint","url":"https://","description":"",` +
	`"enabled_events":["*"],"status":"disabled","disabled_reason":"","environment":"mainnet",` +
	`"created_at":"2026-01-01T00:00:00.000Z","updated_at":"2026-01-01T00:00:00.000Z"}` + "\n" +
	// An error, as saved under an idempotency key.
	`{"error":{"type":"invalid_request_error","code":"","message":"","param":null,` +
	`"request_id":"req_"}}` + "\n" +
	// The response of POST /api/commerce/merchant/checkout/invoice.
	`{"data":{"orderId":"","invoiceId":"",` +
	`"invoiceUrl":"https://pay./pay/?session=ps_&signature=","session":"ps_","signature":"",` +
	`"payment_session_headers":{"x-session-token":"ps_","x-signature":""},"merchantId":1,` +
	`"networkEnvironment":"mainnet","customerId":null,"amount":0,"status":"pending_payment",` +
	`"expiresAt":"2026-01-01T00:00:00.000Z",` +
	`"endpoints":{"cancelOrder":"/api/commerce/merchant/orders//cancel",` +
	`"checkOrder":"/api/commerce/merchant/orders/",` +
	`"checkPayment":"/api/commerce/merchant/payments//status"}},"success":true}` + "\n" +
	// A commerce order (commerce.order.*).
	`{"object":"commerce_order","id":"","orderId":"","invoiceId":"","merchantId":1,` +
	`"networkEnvironment":"mainnet","retailer":"amazon","createdAt":"2026-01-01T00:00:00.000Z",` +
	`"updatedAt":"2026-01-01T00:00:00.000Z","customerId":null,"walletAddress":"0x",` +
	`"walletNetwork":"bsc","status":"pending_payment","substatus":"AWAITING_PAYMENT",` +
	`"actions":{"canCancel":true},"timeline":[{"status":"pending_payment",` +
	`"timestamp":"2026-01-01T00:00:00.000Z","message":"Order created; awaiting payment."},` +
	`{"status":"payment_confirmed","timestamp":"2026-01-01T00:00:00.000Z",` +
	`"message":"Payment confirmed."},{"status":"cancelled",` +
	`"timestamp":"2026-01-01T00:00:00.000Z","message":"Order cancelled."}],` +
	`"payment":{"status":"paid","txHash":null,"settlement":{"status":null,"txHash":null,` +
	`"network":null}},"fulfillment":{"shipments":[]},"lineItems":[{"productId":"","title":"",` +
	`"imageUrl":"https://","quantity":1,"price":"0.00","status":"pending"}],` +
	`"shippingAddress":{"addressId":"","firstName":"","lastName":"","addressLine1":"",` +
	`"addressLine2":null,"city":"","state":"","zipCode":"","country":"US","email":null,` +
	`"phoneNumber":null,"validated":true,"validatedAt":"2026-01-01T00:00:00.000Z"},` +
	`"shippingOption":{"id":"standard","name":"Standard shipping","price":"0.00",` +
	`"estimatedDays":"5-7"},"cancellationStatus":"none","refundStatus":"NONE",` +
	`"subtotalUsd":"0.00","shippingUsd":"0.00","taxUsd":"0.00","totalAmountUsd":"0.00",` +
	`"commerceFeeUsd":"0.00","refund":{"status":"NONE","amountUsd":null,"feeUsd":null,` +
	`"destinationWalletAddressBsc":null,"txHash":null},` +
	`"refundQuote":{"originalAmountUsd":"0.00","feeAmountUsd":"0.00","refundAmountUsd":"0.00",` +
	`"refundToken":{"network":"bsc","symbol":"USDT"},"refundDestination":{"network":"bsc",` +
	`"address":"0x"}}}` + "\n" +
	// A payment (invoice_payment.*).
	`{"object":"invoice_payment","id":"","invoice_id":"","status":"confirmed",` +
	`"network":"bsc-testnet","tx_hash":"0x","log_index":0,"token_id":1,"from_address":"0x",` +
	`"amount_token_units":"1000000000000000000","amount_usd":1000,"amount_usd_decimal":"1.000",` +
	`"confirmations":3,"seen_at":"2026-01-01T00:00:00.000Z","confirmed_at":null,` +
	`"settlement_status":"pending","settlement_tx_hash":null}` + "\n" +
	// A paid invoice.
	`{"object":"invoice","id":"","merchant_id":1,"status":"paid","invoice_type":"standard",` +
	`"currency":"usd","amount":10000,"amount_decimal":"10.000","amount_paid":10000,` +
	`"amount_paid_decimal":"10.000","amount_remaining":0,"amount_remaining_decimal":"0.000",` +
	`"amount_pending":0,"amount_pending_decimal":"0.000","amount_unit":"usd_millis",` +
	`"customer_id":null,"payer_wallet_address":"0x","payer_wallet_network":"bsc",` +
	`"commerce_order_id":null,"environment":"mainnet","expires_at":"2026-01-01T00:00:00.000Z",` +
	`"created_at":"2026-01-01T00:00:00.000Z","paid_at":"2026-01-01T00:00:00.000Z",` +
	`"last_payment_at":"2026-01-01T00:00:00.000Z","canceled_at":null,"description":null,` +
	`"customer_email":null,"invoice_title":"","invoice_footer":"","payment_return_url":null,` +
	`"payment_return_url_enabled":true,"receiver_override_enabled":false,` +
	`"receiver_override_address":null,"questions":null,"form_responses":null,"metadata":{}}` + "\n" +
	// The response of POST /api/v1/invoices, which ends with an unpaid invoice
	// (invoice.created's data): the most frequent, so nearest the end.
	`{"invoice_id":"","payment_url":"https://pay./pay/?session=ps_&signature=",` +
	`"expires_at":"2026-01-01T00:00:00.000Z","session_token":"ps_","signature":"",` +
	`"payment_session_headers":{"x-session-token":"ps_","x-signature":""},` +
	`"invoice":{"object":"invoice","id":"","merchant_id":1,"status":"unpaid",` +
	`"invoice_type":"standard","currency":"usd","amount":10000,"amount_decimal":"10.000",` +
	`"amount_paid":0,"amount_paid_decimal":"0.000","amount_remaining":10000,` +
	`"amount_remaining_decimal":"10.000","amount_pending":0,"amount_pending_decimal":"0.000",` +
	`"amount_unit":"usd_millis","customer_id":null,"payer_wallet_address":null,` +
	`"payer_wallet_network":null,"commerce_order_id":null,"environment":"devnet",` +
	`"expires_at":"2026-01-01T00:00:00.000Z","created_at":"2026-01-01T00:00:00.000Z",` +
	`"paid_at":null,"last_payment_at":null,"canceled_at":null,"description":null,` +
	`"customer_email":null,"invoice_title":"","invoice_footer":"","payment_return_url":null,` +
	`"payment_return_url_enabled":true,"receiver_override_enabled":false,` +
	`"receiver_override_address":null,"questions":null,"form_responses":null,"metadata":{}}}`
