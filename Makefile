# Everyday commands; CI runs `make ci` (bash .ci/run).
PG_DSN ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable

.PHONY: run test test-pg lint ci

run: ## the server on embedded SQLite with demo credentials
	go run ./cmd/kassa serve --dev

test: ## every test; store tests on SQLite only
	go test ./...

test-pg: ## every test, store tests on SQLite and PostgreSQL
	KASSA_TEST_POSTGRES_DSN='$(PG_DSN)' go test -race ./...

lint: ## formatting and vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	go vet ./...

ci: ## what CI runs
	bash .ci/run
