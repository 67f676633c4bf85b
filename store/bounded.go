package store

import "context"

// bounded returns ctx without its cancellation and deadline, for a read that the
// query itself bounds: one row by its key, or a page of a list along an index.
//
// A query under a context that can be cancelled costs two goroutines: database/sql
// starts one to watch the context for the rows, and the driver another (modernc's
// interrupt, pgx's context watcher). On a page of invoices that was 4–8 % of the
// request's CPU (issue 17, docs/performance.md), more than stopping a read that
// ends within a millisecond anyway could save. A read that may run long (a search,
// a filter through a subquery, a report) keeps its caller's context, so a client
// that goes away stops it.
func bounded(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }
