# prodready — build, test, benchmark. Every target works on a fresh clone
# with Go 1.26 installed; nothing else is downloaded except Go modules.

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
BIN       := bin/prodready
BENCHTIME ?= 1x
FUZZTIME  ?= 10s
# Runs spent shrinking each new input: the default (60s) stalls targets
# seeded with 30 KB webhook payloads; crashers are still minimized this much.
FUZZMINIMIZE ?= 200x
GOVULNCHECK_VERSION ?= v1.9.0
# Fuzz targets, package:name, run one after another by `make fuzz`.
FUZZ_TARGETS := ./checks/manifest:FuzzParse ./checks/manifest:FuzzOnlyComments ./checks/manifest:FuzzIsPlaceholder ./checks/edit:FuzzApply ./checks/edit:FuzzChanges \
	./checks/rendered/internal/yamlpath:FuzzSourceFixHelpers ./bot/diff:FuzzParsePatch ./vcs/github/internal/hook:FuzzWebhook ./vcs/gitlab/internal/hook:FuzzWebhook ./internal/cron:FuzzParseCron

.PHONY: build test bench bench-scale bench-peers bench-charts lint fuzz docs docker clean

build: ## build the one static binary into bin/prodready (CLI, server and Action)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/prodready

test: ## run every test (the README's test command); says when ../shared is absent and what that skips
	@[ -d ../shared ] || echo "make test: ../shared is absent (it sits beside the repository in development and CI): the tests that replay its corpus, peer fixtures and payloads skip, each saying so under go test -v"
# -parallel 8: the tests marked t.Parallel (bot/jsqueue's, cmd/prodready's
# replica tests) wait on timers and processes, not on a CPU; the default,
# GOMAXPROCS, ran two at a time on 2 cores (bot/jsqueue: 44 s; 14 s at 8).
# The two longest packages are named first so that go test starts them
# first rather than leaving one of them running alone at the end.
	$(GO) test -parallel 8 ./cmd/prodready ./checks/render ./...

bench: ## run the benchmarks with allocation figures
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

lint: ## go.mod tidy, vet, formatting, and known vulnerabilities (govulncheck with the release toolchain; fails on any reachable one, VULNCHECK_STRICT=0 only reports)
	@$(GO) mod tidy -diff || (echo 'go.mod or go.sum is not tidy: run go mod tidy'; exit 1)
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo 'gofmt needed'; exit 1)
	bash scripts/vulncheck.sh

# The Go release that release builds and the vulnerability scan use (go.mod
# names no toolchain, so build and test use the Go you have).
RELEASE_TOOLCHAIN := $(shell tr -d '[:space:]' < .release-toolchain)

# Fuzzing uses the release toolchain when it can be had: Go 1.26's fuzz coordinator can report its own -fuzztime deadline as a
# failing target ("context deadline exceeded", no input written), fixed in Go
# 1.27 (go.dev/issue/75804). Without it, this machine's Go fuzzes.
fuzz: ## run each fuzz target for FUZZTIME (default 10s); crashers land in the package's testdata/fuzz
	@set -e; tc=$(RELEASE_TOOLCHAIN); \
	if [ -n "$$tc" ] && GOTOOLCHAIN=$$tc $(GO) version >/dev/null 2>&1; then export GOTOOLCHAIN=$$tc; \
	else echo "fuzz: the release toolchain $$tc cannot be had; fuzzing with $$($(GO) env GOVERSION)"; fi; \
	echo "fuzz: $$($(GO) env GOVERSION)"; \
	for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== fuzz $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg; \
	done

docs: ## regenerate the rule reference, the config schema and the table of flags and environment variables
	$(GO) run ./cmd/prodready rules -o markdown --output-file docs/rules.md
	$(GO) run ./cmd/prodready docs flags --output-file docs/flags.md
	$(GO) test ./checks -run TestConfigSchemaIsCurrent -update

docker: ## build the container image (needs a Docker engine)
	docker build --build-arg VERSION=$(VERSION) -t prodready:$(VERSION) .

clean:
	rm -rf bin

bench-scale: ## peak RSS and time of check (text, json, sarif) and fix on generated repositories of 1,000, 10,000 and 50,000 objects (SIZES to choose)
	bash scripts/bench-scale.sh $(SIZES)

bench-peers: ## time prodready against kube-score v1.20.0 on the shared corpus
	bash scripts/bench-peers.sh

bench-charts: ## time prodready on the corpus's Helm charts against helm template | kube-score per chart
	bash scripts/bench-charts.sh

# --- load test: webhook acknowledgement under load (not part of `make test`) ---
# Loopback only; sends LOAD_RATE signed deliveries/s for LOAD_DURATION to the
# real server (JetStream embedded in the path) with the review stubbed, waits
# for the queue to run them, then prints p50/p99 and queued/503/lost counts
# (fails if any delivery is lost or refused). loadtest-memory sends 40
# unsigned 24 MiB bodies at once and fails if peak RSS passes deploy/'s 512Mi
# or a sender reads no answer.
LOAD_RATE     ?= 500
LOAD_DURATION ?= 10s
LOAD_WORK     ?= 20ms

.PHONY: loadtest loadtest-memory
loadtest: ## webhook acknowledgement latency under load, through JetStream (cmd/loadtest)
	$(GO) run ./cmd/loadtest -rate $(LOAD_RATE) -duration $(LOAD_DURATION) -work $(LOAD_WORK)

loadtest-memory: ## peak RSS under 40 concurrent unsigned 24 MiB bodies, GOMEMLIMIT as in deploy/ (cmd/loadtest)
	$(GO) run ./cmd/loadtest -mode unsigned -concurrency 40 -size 25165824

# --- releases (.goreleaser.yaml) ---
# GoReleaser and the SBOM tool run through the Go module proxy at pinned
# versions (`go run …@version`, cached after the first build): nothing is
# downloaded as a binary.
GORELEASER_VERSION ?= v2.15.1
GORELEASER := $(GO) run github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
# More flags for release-snapshot, e.g. --config of a one-platform copy (.ci/run).
GORELEASER_FLAGS ?=

.PHONY: release-snapshot release print-goreleaser-version
print-goreleaser-version:
	@echo $(GORELEASER_VERSION)

release-snapshot: ## build the release's archives, checksums and SBOMs into dist/ without publishing, signing or the image (needs no Docker)
	RELEASE_TOOLCHAIN=$(RELEASE_TOOLCHAIN) $(GORELEASER) release --snapshot --clean --skip=publish,sign,docker $(GORELEASER_FLAGS)

release: ## the real release from a vX.Y.Z tag (.github/workflows/release.yml: needs GITHUB_TOKEN, cosign, Docker buildx)
	RELEASE_TOOLCHAIN=$(RELEASE_TOOLCHAIN) $(GORELEASER) release --clean
