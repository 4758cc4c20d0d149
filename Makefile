# cks-drift-exporter. Go is the only toolchain needed to build, test and run the demo; the
# end-to-end tests also use Debian's prometheus, prometheus-alertmanager and mariadb-server when
# installed (.ci/run installs them).

GO        ?= go
# Builds and tests use the Go release named in .go-version, its one home (.ci/run, the Dockerfile
# and the packaging read it too): go1.26.8 has reachable standard-library vulnerabilities
# (scripts/govulncheck.sh --strict). A Go installation with GOTOOLCHAIN=local ignores a toolchain
# line in go.mod, so the release is chosen here; the go command fetches it from the module proxy
# once (about 76 MB). The go lines of the go.mod files are minimum language versions, which
# `go mod tidy` keeps at least as high as the dependencies ask.
export GOTOOLCHAIN ?= $(shell cat .go-version)
BINARY    := cks-drift-exporter
# The version of the binary, the packages and the image: the VERSION file at a release, with the
# commit count and commit after it (0.1.0+103.gd2b6b0a; packaging/version.sh). RELEASE is the
# VERSION file's alone: the chart's appVersion.
VERSION   ?= $(shell packaging/version.sh)
RELEASE   := $(shell tr -d ' \n' <VERSION)
REVISION  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BRANCH    ?= $(shell git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -s -w \
	-X github.com/prometheus/common/version.Version=$(VERSION) \
	-X github.com/prometheus/common/version.Revision=$(REVISION) \
	-X github.com/prometheus/common/version.Branch=$(BRANCH) \
	-X github.com/prometheus/common/version.BuildUser=make \
	-X github.com/prometheus/common/version.BuildDate=$(shell date -u +%Y%m%d-%H:%M:%S)

.PHONY: all build test demo lint fmt clean package chart

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BINARY) ./cmd/cks-drift-exporter

# Every test: unit and end-to-end tests (with promtool, Prometheus, Alertmanager and MariaDB when
# installed; .ci/run installs them), the PromQL checks of the rules and dashboards (a module of
# their own, rules/promqlcheck, so that Prometheus's parser stays out of the exporter's go.sum),
# then each fuzz target for a short, fixed time.
# MODULES are the repository's Go modules that lint and test loop over: the exporter's, the
# PromQL checks (rules/promqlcheck), the chart's tests (deploy/test) and the image build
# (deploy/image). The pinned tools in tools/ are built, not tested.
MODULES := . rules/promqlcheck deploy/test deploy/image
FUZZTIME ?= 5s
test: helm
	@for m in $(MODULES); do \
	  echo "test: $$m"; \
	  $(GO) -C $$m vet ./... && HELM=$(HELM_BIN) $(GO) -C $$m test -race -count=1 -timeout 30m ./... || exit 1; \
	done
	GO=$(GO) scripts/fuzz.sh $(FUZZTIME)

# The inner loop: every package's tests with -short and without the race detector; tests that
# start a real server (sshd, MariaDB, Prometheus, Alertmanager, Chromium, kube-apiserver) skip.
.PHONY: test-short
test-short:
	$(GO) test -short -count=1 -timeout 10m ./...

# make test RUNS times in a row under load from a parallel build (scripts/test-under-load.sh):
# how docs/development.md measures that the tests are deterministic.
RUNS ?= 5
.PHONY: test-under-load
test-under-load:
	GO=$(GO) scripts/test-under-load.sh $(RUNS)

demo:
	$(GO) run ./cmd/cks-drift-demo $(DEMO_FLAGS)

# The generated references: the metrics table of docs/metrics.md (from the registered metric
# families), the keys of docs/configuration.md (from the configuration's Go types, comments and
# defaults), and from the kinds' declarations (collector/kinds.go) the kinds tables of README.md
# and docs/how-it-works.md and the drift alerts of the rules, copied into the Helm chart.
# docs/references_test.go fails when one is stale.
.PHONY: docs
docs:
	$(GO) test -count=1 -run '^TestGeneratedReferences$$' ./docs -update
	cp rules/cks-drift.rules.yml $(CHART)/files/

# gofmt, go vet, staticcheck and an untidy go.mod all fail the lint; .ci/run runs it before the tests.
# Every tool is pinned the same way: a module of its own under tools/ whose go.mod names it with a
# tool directive (staticcheck, govulncheck, helm, nfpm, the Kubernetes control plane), built into
# build/ once and reused while it is up to date.
STATICCHECK := $(CURDIR)/build/staticcheck
.PHONY: staticcheck
staticcheck:
	$(GO) -C tools/staticcheck build -o $(STATICCHECK) honnef.co/go/tools/cmd/staticcheck

lint: staticcheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@for m in $(MODULES); do \
	  echo "lint: $$m"; \
	  (cd $$m && $(GO) mod tidy -diff && $(GO) vet ./... && $(STATICCHECK) ./...) || exit 1; \
	done

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -f $(BINARY)
	rm -rf build dist

# The Helm chart's copies of the alerting rules and dashboards: its PrometheusRule and dashboard
# ConfigMaps are made from them; deploy/test fails when they differ from rules/ and dashboards/.
# The chart's appVersion (the image tag it deploys) is the release's; packaging's test checks it.
CHART := deploy/helm/cks-drift-exporter
chart:
	sed -i 's/^appVersion: .*/appVersion: "$(RELEASE)"/' $(CHART)/Chart.yaml
	mkdir -p $(CHART)/files/dashboards
	cp rules/cks-drift.rules.yml $(CHART)/files/
	rm -f $(CHART)/files/dashboards/*.json
	cp dashboards/*.json $(CHART)/files/dashboards/

# A real Kubernetes control plane for tests: etcd, kube-apiserver, kube-controller-manager and
# kubectl in build/, from the versions tools/etcd and tools/kube pin, and the prometheus-operator
# CRDs. Built once per version (scripts/kube-tools.sh keeps a stamp); the first build is long
# (kube-apiserver alone about 16 minutes of CPU and 2.4 GB of memory).
.PHONY: kube-tools
kube-tools:
	GO=$(GO) scripts/kube-tools.sh

# The chart's offline tests (deploy/test, a module of its own with the Kubernetes API types):
# helm lint and template, strict decoding, promtool. helm is built once from tools/helm (a long
# first build; later runs find the binary up to date). No -race: the tests run no goroutines.
# Then the daemonless image build (deploy/image) and its test.
HELM_BIN := $(CURDIR)/build/helm
.PHONY: deploy-test helm
helm:
	$(GO) -C tools/helm build -o $(HELM_BIN) helm.sh/helm/v3/cmd/helm

deploy-test: helm
	$(GO) -C deploy/test vet ./...
	HELM=$(HELM_BIN) $(GO) -C deploy/test test -count=1 ./...
	$(GO) -C deploy/image vet ./...
	$(GO) -C deploy/image test -count=1 ./...

# The container image without a daemon (deploy/image): the static binary, CA certificates and the
# state directory on an empty base, user 65532, as a tarball for `docker load` or a registry
# client, tagged as a release would publish it (a tag cannot hold "+": 0.1.0_103.gd2b6b0a; the
# version label keeps it). `docker build --build-arg VERSION=$(packaging/version.sh) .` makes
# the same image on distroless.
IMAGE ?= ghcr.io/cks-drift-exporter/cks-drift-exporter
.PHONY: image
image: build
	mkdir -p dist
	$(GO) -C deploy/image run . -binary $(CURDIR)/$(BINARY) -version '$(VERSION)' -revision '$(REVISION)' \
	  -tag '$(IMAGE):$(subst +,_,$(VERSION))' -o $(CURDIR)/dist/cks-drift-exporter-image.tar

# The .deb and .rpm (packaging/nfpm.yaml) in dist/, built with nFPM at the version tools/nfpm
# pins: no other toolchain. The version is VERSION's, the binary `make build`'s; PKG_RELEASE is
# the package revision of one version. Beside the binary: its manual page (packaging/manpage.sh)
# and the Debian changelog, dated by the commit so that two builds of one commit agree, and
# CHANGELOG.md, compressed for the .deb as Debian's policy names an upstream changelog.
PKG_VERSION ?= $(VERSION)
PKG_RELEASE ?= 1
PKG_ARCH    ?= $(shell $(GO) env GOARCH)
PKG_DATE    := $(shell git log -1 --format=%aD 2>/dev/null || date -R)
# The .deb's prerm refuses a downgrade below the first version that reads the state file's format
# (state.Format): the version of the commit that last set it, or, before it is committed, this one.
STATE_FORMAT        = $(shell sed -n 's/^const Format = \([0-9]*\)$$/\1/p' state/format.go)
STATE_FORMAT_COMMIT = $(shell git log -1 --format=%H -G'^const Format = [0-9]+$$' -- state/format.go 2>/dev/null)
STATE_FORMAT_SINCE  = $(if $(STATE_FORMAT_COMMIT),$(shell packaging/version.sh $(STATE_FORMAT_COMMIT)),$(PKG_VERSION))
package: build
	$(GO) -C tools/nfpm build -o $(CURDIR)/build/nfpm github.com/goreleaser/nfpm/v2/cmd/nfpm
	sed -e 's/@VERSION@/$(PKG_VERSION)-$(PKG_RELEASE)/' -e 's/@STATE_FORMAT@/$(STATE_FORMAT)/' \
	  -e 's/@STATE_FORMAT_SINCE@/$(STATE_FORMAT_SINCE)/' packaging/deb/prerm >build/prerm
	@grep -q "^since='[0-9]" build/prerm && grep -q "^format='[0-9]" build/prerm || { echo "build/prerm: no state format"; exit 1; }
	packaging/manpage.sh ./$(BINARY) '$(PKG_VERSION)' "$$(date -u -d '$(PKG_DATE)' +%F)" | gzip -9n >build/$(BINARY).1.gz
	printf '%s (%s-%s) unstable; urgency=medium\n\n  * Release %s (%s).\n\n -- %s  %s\n' \
	  $(BINARY) '$(PKG_VERSION)' '$(PKG_RELEASE)' '$(PKG_VERSION)' '$(REVISION)' \
	  'cks-drift-exporter maintainers <cks-drift-exporter@users.noreply.github.com>' '$(PKG_DATE)' \
	  | gzip -9n >build/changelog.Debian.gz
	gzip -9nc CHANGELOG.md >build/changelog.gz
	mkdir -p dist
	for p in deb rpm; do \
	  PKG_VERSION='$(PKG_VERSION)' PKG_RELEASE='$(PKG_RELEASE)' PKG_ARCH='$(PKG_ARCH)' \
	    build/nfpm package --config packaging/nfpm.yaml --packager $$p --target dist/ || exit 1; \
	done

# The scale benchmark (not part of `make test`): the exporter's cycle against the simulated cloud
# with injected latency, for each world size, beside its lower bound and a one-cluster-at-a-time
# check; see docs/benchmarks.md (about 40 minutes). `make bench BENCH_CLUSTERS="10 100"` runs fewer
# worlds, "10000@64" a world at a check.concurrency of its own,
# `make bench BENCH_UPDATE=1` rewrites the results in docs/benchmarks.md, `BENCH_GO=0` skips the Go
# benchmarks (go test -bench -benchmem of collector and exporter). One SSH server per cluster
# runs in the fake's process: the open files limit is raised as far as the hard limit allows.
BENCH_CLUSTERS ?= 10 100 1000 5000 10000 10000@64
BENCH_UPDATE   ?=
BENCH_GO       ?= 1
BENCH_FLAGS    ?=
.PHONY: bench
bench:
	ulimit -n 65536 2>/dev/null || ulimit -n $$(ulimit -Hn); \
	BENCH_COMMAND='make bench BENCH_CLUSTERS="$(BENCH_CLUSTERS)"$(if $(BENCH_UPDATE), BENCH_UPDATE=$(BENCH_UPDATE))$(if $(filter-out 1,$(BENCH_GO)), BENCH_GO=$(BENCH_GO))$(if $(BENCH_FLAGS), BENCH_FLAGS="$(BENCH_FLAGS)")' \
	$(GO) run ./test/bench -clusters "$(BENCH_CLUSTERS)" $(if $(filter 1,$(BENCH_GO)),-go-bench) $(if $(BENCH_UPDATE),-update docs/benchmarks.md) $(BENCH_FLAGS)

# The exporter's peak RSS against hostile Kubernetes API servers (not part of `make test`): one
# per cluster, each answering about 100 MB of NodeList JSON or attacking otherwise (a kubeconfig
# of YAML aliases, whitespace, huge headers, HTTP/2 floods), at check.concurrency 16 and 64, with
# the binary `make build` makes; see docs/benchmarks.md (a few minutes).
HOSTILE_API_CONCURRENCY ?= 16,64
.PHONY: bench-hostile-api
bench-hostile-api: build
	$(GO) run ./test/bench/hostileapi -exporter ./$(BINARY) -concurrency $(HOSTILE_API_CONCURRENCY)

# The soak (exporter/soak_test.go): 1,000 short cycles against the simulator with random faults,
# then checks for leaked goroutines, heap growth and lost or doubled announcements. Takes a few
# minutes; CKS_DRIFT_SOAK_SEED=n replays a logged seed, CKS_DRIFT_SOAK_CYCLES=n changes the length.
.PHONY: soak
soak:
	CKS_DRIFT_SOAK=1 $(GO) test -race -count=1 -timeout 30m -run '^TestSoak$$' -v ./exporter/
