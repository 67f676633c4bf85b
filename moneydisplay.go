package kassa

// USD is how an amount is shown to a person, everywhere (the dashboard, the
// payment page, the command line): a dollar sign and cents, "$12.50", or the exact
// thousandths when the amount is not a whole number of cents, "$12.505". It never
// rounds: amounts are exact in millis, and a payor told "$12.51" beside "send
// exactly 12.505 USDT" cannot tell which is right. A negative amount (a day whose
// refunds exceed its sales) is "-$2.50". No thousands separator: the payment page
// speaks several languages, and "1,000" reads as one in some of them. The payment
// page's script has the same rule (api/paypage/assets/pay.js, usd).
func (m Millis) USD() string {
	s := m.Decimal() // "-12.500"
	if m%10 == 0 {
		s = s[:len(s)-1]
	}
	if m < 0 {
		return "-$" + s[1:]
	}
	return "$" + s
}
