# matchrec — build, test, demo, bench. `make help` lists the targets.

GO      ?= go
BIN     := bin/matchrec
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/matchrec/matchrec/cmd/matchrec/internal/cli.Version=$(VERSION)
EXAMPLES := $(wildcard examples/*.yaml examples/*.json)
BENCHTIME ?= 2s

.PHONY: help build test test-cluster demo cluster-demo bench clean

help:
	@echo "make build   build $(BIN)"
	@echo "make test    go vet, then every test with the race detector"
	@echo "make test-cluster  the multi-process cluster test: 3 NATS nodes, 3 recorders, kills (docs/cluster.md)"
	@echo "make demo    play every example into a fresh data dir and print its log and state"
	@echo "make cluster-demo  3 NATS nodes and 2 recorders on this machine, a kill of each kind, a summary"
	@echo "make bench   run the benchmarks (BENCHTIME=$(BENCHTIME))"

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/matchrec

test:
	$(GO) vet ./...
	$(GO) test -race -timeout 20m ./...

# The cluster test runs recorder processes (built by the test) on an
# in-process 3-node NATS cluster and kills some (docs/cluster.md).
test-cluster:
	$(GO) test -race -tags cluster -timeout 5m -count=1 -v -run 'TestCluster' ./cmd/matchrec/internal/clusterrun/

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

# Three NATS nodes and two recorder processes on this machine, a recorder
# killed and the stream's leader node stopped under matches in play, then
# everything checked (docs/cluster.md). Exits 1 if anything was lost,
# doubled or unequal.
cluster-demo: build
	$(BIN) cluster-demo --doc docs/cluster.md $(EXAMPLES)

bench:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) ./...

clean:
	rm -rf bin
