# matchrec — build, test, demo, bench. `make help` lists the targets.

GO      ?= go
BIN     := bin/matchrec
# make demo's binary leaves DuckDB out (-tags noduckdb): linking it is most
# of a build's time and of a first build's downloads, and the demo only
# plays, tells and audits matches (docs/PERFORMANCE.md, "Time to a first
# demo"). Its analytics commands say so (no_analytics).
DEMO_BIN := bin/matchrec-demo
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
CLI_PKG := github.com/matchrec/matchrec/cmd/matchrec/internal/cli
LDFLAGS := -X $(CLI_PKG).Version=$(VERSION) -X $(CLI_PKG).Commit=$(COMMIT) -X $(CLI_PKG).Date=$(BUILD_DATE)
EXAMPLES := $(wildcard examples/*.yaml examples/*.json)
BENCHTIME ?= 2s
FUZZTIME ?= 1m
# Every fuzz target, as package:target; `make test` runs their seed corpora.
# FuzzRandomPlay is the random-play property (replay/randomplay_test.go):
# the fuzzer picks the seeds of random legal matches.
FUZZ := ./events:FuzzUnmarshal ./projector/script:FuzzParse \
	./replay:FuzzAPIRequest ./replay:FuzzReadBundle ./replay:FuzzBundleRecord \
	./replay:FuzzRandomPlay

.PHONY: help build demo-build test test-long test-cluster golden golden-record demo cluster-demo venue-demo bench loadtest fuzz clean

help:
	@echo "make build   build $(BIN)"
	@echo "make test    go vet, every test with the race detector, the independent verifier's tests"
	@echo "make test-long  the statistical checks at 100x the runs, long matches (no -race)"
	@echo "make golden  pin the golden histories' final state for this build's StateVersion (after a deliberate state change)"
	@echo "make golden-record  record the golden histories that do not exist yet (a new edition or example)"
	@echo "make test-cluster  the multi-process cluster test: 3 NATS nodes, 3 recorders, kills (docs/cluster.md)"
	@echo "make cluster-demo  3 NATS nodes and 3 recorders on this machine, played through at once, a kill of each kind, a summary"
	@echo "make venue-demo    a hub and two venues (leaf nodes) on this machine, a venue's line cut for a minute under play, a summary"
	@echo "make demo    build $(DEMO_BIN) (no analytics), play every example into a fresh data dir, print its log, state and audit"
	@echo "make bench   run the benchmarks (BENCHTIME=$(BENCHTIME))"
	@echo "make fuzz    run each fuzz target in turn (FUZZTIME=$(FUZZTIME) each)"
	@echo "make loadtest  500 SSE viewers on a 10,000-event match while a player records (docs/PERFORMANCE.md)"

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/matchrec

demo-build:
	$(GO) build -tags noduckdb -ldflags "$(LDFLAGS)" -o $(DEMO_BIN) ./cmd/matchrec

test:
	$(GO) vet ./...
	$(GO) test -race -timeout 45m ./...
	python3 tools/verify_test.py
	python3 tools/verify_scheme3_test.py

# Golden histories (testdata/golden/README.md): recorded bundles are never
# re-recorded. `golden` pins the final state of every bundle for this
# build's projector.StateVersion; `golden-record` records only bundles that
# do not exist yet and pins them.
golden:
	$(GO) test ./replay -run '^TestGoldenHistories$$' -count=1 -update

golden-record:
	$(GO) test ./replay -run '^TestGoldenHistories$$' -count=1 -record

# With MATCHREC_TEST_LONG set the statistical checks run 100x the runs (the
# fair-dice report over 100 recorded seasons, not 10) and the long-match
# tests run. They exercise no concurrency, so this runs without -race.
test-long:
	MATCHREC_TEST_LONG=1 $(GO) test -timeout 60m ./...

# The cluster test runs recorder processes (built by the test) on an
# in-process 3-node NATS cluster and kills some (docs/cluster.md).
test-cluster:
	$(GO) test -race -tags cluster -timeout 15m -count=1 -v -run 'TestCluster' ./cmd/matchrec/internal/clusterrun/

# Each example is played through the CLI into a throw-away data directory
# (an in-process recorder: no server, no port), then told back.
demo: demo-build
	@set -e; data=$$(mktemp -d); trap 'rm -rf "$$data"' EXIT; \
	for f in $(EXAMPLES); do \
		echo "== play $$f"; \
		id=$$($(DEMO_BIN) --data "$$data" play "$$f"); \
		echo "match $$id"; echo; \
		echo "== log $$id"; $(DEMO_BIN) --data "$$data" log "$$id"; echo; \
		echo "== state $$id"; $(DEMO_BIN) --data "$$data" state "$$id"; echo; \
		echo "== audit $$id"; $(DEMO_BIN) --data "$$data" audit "$$id"; echo; \
	done; \
	$(DEMO_BIN) --data "$$data" matches

# Three NATS nodes and two recorder processes on this machine, a recorder
# killed and the stream's leader node stopped under matches in play, then
# everything checked (docs/cluster.md). Exits 1 if anything was lost,
# doubled or unequal.
cluster-demo: build
	$(BIN) cluster-demo --doc docs/cluster.md $(EXAMPLES)

# A league on this machine (docs/cluster.md, "Venues"): a hub, two venues'
# leaf nodes, one venue's line cut for a minute under play. Exits 1 if an
# event was lost, doubled or reordered in the hub's archive.
venue-demo: build
	$(BIN) venue-demo --doc docs/cluster.md

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

# The viewers' load test: MATCHREC_LOAD_VIEWERS (500) streams on a
# MATCHREC_LOAD_EVENTS (10,000) event match while a player records
# MATCHREC_LOAD_COMMANDS (200) commands at MATCHREC_LOAD_RATE (10) a second.
loadtest:
	$(GO) test -run '^$$' -bench 'BenchmarkViewers$$' -benchtime 1x -timeout 30m ./cmd/matchrec/internal/web/

clean:
	rm -rf bin
