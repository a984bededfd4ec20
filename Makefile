# Common tasks. Every Go command of Recall needs the build tag sqlite_fts5
# (SQLite's full-text search); these targets pass it so nobody has to remember.
TAGS    := sqlite_fts5
GO      ?= go
PKGS    ?= ./...
BENCH   ?= .
COUNT   ?= 1
STATICCHECK_VERSION := v0.8.2

.PHONY: help build install run test race vet fmt fmt-check staticcheck lint bench conformance ci clean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## build every package and the recall binary (./recall)
	$(GO) build -tags $(TAGS) ./...
	$(GO) build -tags $(TAGS) -o recall ./cmd/recall

install: ## install recall into $(go env GOPATH)/bin
	$(GO) install -tags $(TAGS) ./cmd/recall

run: ## run the MCP server over stdio
	$(GO) run -tags $(TAGS) ./cmd/recall serve

test: ## run the tests (PKGS=./memory/... to pick packages)
	$(GO) test -tags $(TAGS) $(PKGS)

race: ## run the tests with the race detector, as CI does
	$(GO) test -race -tags $(TAGS) $(PKGS)

vet: ## go vet
	$(GO) vet -tags $(TAGS) $(PKGS)

fmt: ## rewrite the Go files gofmt would change
	gofmt -w .

fmt-check: ## fail when a Go file is not gofmt'ed
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt -w these files:"; echo "$$out"; exit 1; fi

staticcheck: ## staticcheck at the version CI pins (installed when missing)
	@command -v staticcheck >/dev/null 2>&1 && staticcheck -version | grep -q "$(STATICCHECK_VERSION:v%=%)" || \
		$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	staticcheck -tags $(TAGS) $(PKGS)

lint: fmt-check vet staticcheck ## gofmt, go vet and staticcheck

bench: ## run benchmarks (PKGS=./storage/sqlite/sqlite/ BENCH=SearchKeyword COUNT=5)
	$(GO) test -tags $(TAGS) -run '^$$' -bench '$(BENCH)' -count $(COUNT) $(PKGS)

conformance: ## the MCP conformance suite against recall serve (needs npm)
	scripts/conformance.sh

ci: ## what CI runs on a fresh machine: gofmt, vet, staticcheck, tests with -race
	bash .ci/run

clean: ## remove the binary built by make build
	rm -f recall
