# Everyday commands. CI runs `make ci`, i.e. bash .ci/run; tool versions are pinned in .ci/lint.

# Store tests also run on PostgreSQL when KASSA_TEST_POSTGRES_DSN is set (`make test-pg`).
PG_DSN ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable

.PHONY: help run test test-pg lint tools ci

help: ## list the targets
	@sed -n 's/^\([a-z-]*\):.*## /  make \1\t/p' Makefile

run: ## the server on embedded SQLite in ./data, with a demo merchant
	go run ./cmd/kassa serve --dev

test: ## the test suite (SQLite only unless KASSA_TEST_POSTGRES_DSN is in the environment)
	go test ./...

test-pg: ## the test suite on SQLite and PostgreSQL (PG_DSN=... overrides the DSN)
	KASSA_TEST_POSTGRES_DSN='$(PG_DSN)' go test ./...

lint: ## gofmt, go vet, staticcheck, deadcode (installs the pinned tools if needed)
	bash .ci/lint

tools: ## install staticcheck and deadcode at the pinned versions; print their paths
	bash .ci/lint tools

ci: ## what CI runs (starts PostgreSQL if it is down)
	bash .ci/run
