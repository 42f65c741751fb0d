# matchrec — build, test, demo, bench. `make help` lists the targets.

GO      ?= go
BIN     := bin/matchrec
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/matchrec/matchrec/cmd/matchrec/internal/cli.Version=$(VERSION)
EXAMPLES := $(wildcard examples/*.yaml examples/*.json)
BENCHTIME ?= 2s

.PHONY: help build test golden golden-record demo bench clean

help:
	@echo "make build   build $(BIN)"
	@echo "make test    go vet, every test with the race detector, the independent verifier's tests"
	@echo "make golden  pin the golden histories' final state for this build's StateVersion (after a deliberate state change)"
	@echo "make golden-record  record the golden histories that do not exist yet (a new edition or example)"
	@echo "make demo    play every example into a fresh data dir and print its log and state"
	@echo "make bench   run the benchmarks (BENCHTIME=$(BENCHTIME))"

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/matchrec

test:
	$(GO) vet ./...
	$(GO) test -race -timeout 20m ./...
	python3 tools/verify_test.py

# Golden histories (testdata/golden/README.md): recorded bundles are never
# re-recorded. `golden` pins the final state of every bundle for this
# build's projector.StateVersion; `golden-record` records only bundles that
# do not exist yet and pins them.
golden:
	$(GO) test ./replay -run '^TestGoldenHistories$$' -count=1 -update

golden-record:
	$(GO) test ./replay -run '^TestGoldenHistories$$' -count=1 -record

# Each example is played through the CLI into a throw-away data directory
# (an in-process recorder: no server, no port), then told back.
demo: build
	@set -e; data=$$(mktemp -d); trap 'rm -rf "$$data"' EXIT; \
	for f in $(EXAMPLES); do \
		echo "== play $$f"; \
		id=$$($(BIN) --data "$$data" play "$$f"); \
		echo "match $$id"; echo; \
		echo "== log $$id"; $(BIN) --data "$$data" log "$$id"; echo; \
		echo "== state $$id"; $(BIN) --data "$$data" state "$$id"; echo; \
		echo "== audit $$id"; $(BIN) --data "$$data" audit "$$id"; echo; \
	done; \
	$(BIN) --data "$$data" matches

bench:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) ./...

clean:
	rm -rf bin
