package dashboard

import (
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/kassapay/kassa"
)

// pageSize is how many invoices a list page shows.
const pageSize = 25

// statuses are the invoice statuses a list can filter on.
var statuses = []kassa.InvoiceStatus{kassa.StatusUnpaid, kassa.StatusUnderpaid, kassa.StatusPaid, kassa.StatusExpired, kassa.StatusCanceled}

// invoicesView is the invoice list and the filters that made it, as in the URL.
type invoicesView struct {
	Invoices   []*kassa.Invoice
	Q          string
	Status     map[kassa.InvoiceStatus]bool
	Statuses   []kassa.InvoiceStatus
	Created    string // "", 24h, 7d, 30d or custom
	From, To   string // custom dates, YYYY-MM-DD
	Attention  bool   // underpaid, or money set aside (late, wrong token)
	Error      string
	Prev, Next string // links to the neighbouring pages
}

// invoices serves GET /dashboard/invoices: the merchant's invoices of the
// session's environment, newest first, filtered by the query (status, created,
// created_gte, created_lte, attention, q) and paged by cursor.
func (d *Dashboard) invoices(w http.ResponseWriter, r *http.Request, v *visit) error {
	q := r.URL.Query()
	view := invoicesView{Q: q.Get("q"), Status: map[kassa.InvoiceStatus]bool{}, Statuses: statuses,
		Created: q.Get("created"), From: q.Get("created_gte"), To: q.Get("created_lte"), Attention: q.Get("attention") == "1"}
	env := v.env()
	f := kassa.InvoiceFilter{MerchantID: v.m.ID, Environment: &env, Query: view.Q, Limit: pageSize,
		StartingAfter: q.Get("starting_after"), EndingBefore: q.Get("ending_before")}
	for _, s := range q["status"] {
		st := kassa.InvoiceStatus(s)
		if !slices.Contains(statuses, st) {
			view.Error = "Unknown status " + s + "."
			continue
		}
		view.Status[st] = true
		f.Statuses = append(f.Statuses, st)
	}
	f.NeedsAttention = view.Attention
	if utf8.RuneCountInString(view.Q) > 200 {
		view.Error, f.Query = "The search is longer than 200 characters.", ""
	}
	if err := createdRange(&f, view.Created, view.From, view.To, d.cfg.Now()); err != "" {
		view.Error = err
	}
	status := http.StatusOK
	if view.Error != "" {
		status = http.StatusBadRequest
	} else {
		invs, more, err := d.cfg.Invoices.Invoices(r.Context(), f)
		if err != nil {
			if kassa.ErrorKindOf(err) != kassa.KindInvalid {
				return err
			}
			status, view.Error = http.StatusBadRequest, kassa.AsError(err).Message
		}
		view.Invoices = invs
		if len(invs) > 0 {
			view.Prev, view.Next = cursorLinks(r, "/dashboard/invoices", invs[0].ID, invs[len(invs)-1].ID, more,
				f.EndingBefore != "", f.StartingAfter != "")
		}
	}
	d.render(w, r, status, "invoices.html", v, view)
	return nil
}

// createdRange applies a date preset or a custom range (whole UTC days) to f; it
// returns what is wrong with them, or "".
func createdRange(f *kassa.InvoiceFilter, preset, from, to string, now time.Time) string {
	since := map[string]time.Duration{"24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour}
	if d, ok := since[preset]; ok {
		t := now.Add(-d)
		f.CreatedGTE = &t
		return ""
	}
	if preset != "" && preset != "custom" {
		return "Unknown date range " + preset + "."
	}
	if from != "" {
		t, err := time.Parse(time.DateOnly, from)
		if err != nil {
			return "The start date must be a date such as 2026-11-24."
		}
		f.CreatedGTE = &t
	}
	if to != "" {
		t, err := time.Parse(time.DateOnly, to)
		if err != nil {
			return "The end date must be a date such as 2026-11-24."
		}
		t = t.Add(24*time.Hour - time.Microsecond)
		f.CreatedLTE = &t
	}
	return ""
}

// cursorLinks are the links to the newer and older pages of a list at path,
// keeping the request's filters: first and last are the ids at the page's ends.
func cursorLinks(r *http.Request, path, first, last string, more, backward, forward bool) (prev, next string) {
	link := func(param, id string) string {
		q := r.URL.Query()
		q.Del("starting_after")
		q.Del("ending_before")
		q.Set(param, id)
		return path + "?" + q.Encode()
	}
	if (backward && more) || forward {
		prev = link("ending_before", first)
	}
	if (!backward && more) || backward {
		next = link("starting_after", last)
	}
	return prev, next
}
