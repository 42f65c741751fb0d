# matchrec — build, test, demo, bench. `make help` lists the targets.

GO      ?= go
BIN     := bin/matchrec
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/matchrec/matchrec/cmd/matchrec/internal/cli.Version=$(VERSION)
EXAMPLES := $(wildcard examples/*.yaml examples/*.json)
BENCHTIME ?= 2s
FUZZTIME ?= 1m
# Every fuzz target, as package:target; `make test` runs their seed corpora.
FUZZ := ./events:FuzzUnmarshal ./projector/script:FuzzParse \
	./replay:FuzzAPIRequest ./replay:FuzzReadBundle ./replay:FuzzBundleRecord

.PHONY: help build test demo bench fuzz clean

help:
	@echo "make build   build $(BIN)"
	@echo "make test    go vet, then every test with the race detector"
	@echo "make demo    play every example into a fresh data dir and print its log and state"
	@echo "make bench   run the benchmarks (BENCHTIME=$(BENCHTIME))"
	@echo "make fuzz    run each fuzz target in turn (FUZZTIME=$(FUZZTIME) each)"

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/matchrec

test:
	$(GO) vet ./...
	$(GO) test -race -timeout 20m ./...

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

# One fuzz worker per target (GOMAXPROCS=1): the machines are small and
# shared. Minimizing a new input is capped at 10s: the seeds include whole
# example scripts and bundles, and shrinking one of those would otherwise
# take most of FUZZTIME. A crash stops the run and leaves the input under
# the package's testdata/fuzz/<target>/, where `make test` replays it from
# then on.
fuzz:
	@set -e; for t in $(FUZZ); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== fuzz $$name ($$pkg, $(FUZZTIME))"; \
		GOMAXPROCS=1 $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s -parallel 1 $$pkg; \
	done

clean:
	rm -rf bin
