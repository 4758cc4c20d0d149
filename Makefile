# cks-drift-exporter. Go is the only toolchain needed to build, test and run the demo; the
# end-to-end tests also use Debian's prometheus, prometheus-alertmanager and mariadb-server when
# installed (.ci/run installs them).

GO        ?= go
BINARY    := cks-drift-exporter
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BRANCH    ?= $(shell git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -s -w \
	-X github.com/prometheus/common/version.Version=$(VERSION) \
	-X github.com/prometheus/common/version.Revision=$(REVISION) \
	-X github.com/prometheus/common/version.Branch=$(BRANCH) \
	-X github.com/prometheus/common/version.BuildUser=make \
	-X github.com/prometheus/common/version.BuildDate=$(shell date -u +%Y%m%d-%H:%M:%S)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build test demo lint fmt clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BINARY) ./cmd/cks-drift-exporter

test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

demo:
	$(GO) run ./cmd/cks-drift-demo

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run $(STATICCHECK) ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -f $(BINARY)
