# Copyright 2026 The csi-resizer Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

GO ?= go
# The Go toolchain everything is built and tested with, exported to every
# command (go, hack/*.sh, the tests): the go command downloads it from the
# module proxy once (about 76 MB) and runs it whatever Go the machine has.
# go1.27.3 carries the standard library's security fixes that go1.26.8
# lacks (make verify-vuln checks); `make GOTOOLCHAIN=...` tries another.
# .ci/run, the Dockerfile's builder and hack/*.sh name the same version.
GOTOOLCHAIN := go1.27.3
export GOTOOLCHAIN
MODULE := github.com/csi-resizer/csi-resizer
BINARY := csi-resizer
# The kubectl plugin `kubectl csi-resizer explain` and `list` (pkg/plugin).
PLUGIN := kubectl-csi_resizer
# Computed once; `make VERSION=v1.2.3 build` overrides it.
ifndef VERSION
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
endif
LDFLAGS := -s -w -X $(MODULE)/pkg/version.Version=$(VERSION)
# The one build command of the binaries, make build's and make image's.
GOBUILD = CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=false -ldflags "$(LDFLAGS)"

# The image's name, the chart's and deploy/kubernetes' (hack/image's test
# checks that they agree). A release's tag is its version: `make image` at
# the tag v0.1.0, or `make image VERSION=v0.1.0`.
IMAGE ?= ghcr.io/csi-resizer/csi-resizer
IMAGE_TAG ?= $(VERSION)
IMAGE_PLATFORMS ?= linux/amd64 linux/arm64
IMAGE_ARCHIVE ?= _output/csi-resizer-image.tar
# The commit, and its time: the image's date and its files', so that the
# same commit gives the same digest. Expanded only when used.
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

.PHONY: all build resizer plugin bench demo test test-unit test-e2e test-compat test-chaos test-fuzz vet fmt-check vendor-check deps-check license-check verify-vuln image container clean FORCE

all: build

# -buildvcs=false: the version is VERSION, and the binary is the same as the
# one the Dockerfile builds, whose context may lack .git.
build: resizer plugin

resizer:
	$(GOBUILD) -o bin/$(BINARY) ./cmd/$(BINARY)

plugin:
	$(GOBUILD) -o bin/$(PLUGIN) ./cmd/$(PLUGIN)

# `make test` is the README's test command: checks, unit tests, then the
# end-to-end suite against a real kube-apiserver and CSI mock driver. Each
# part prints how long it took.
test:
	@start=$$SECONDS; $(MAKE) --no-print-directory test-unit; echo "unit tests and checks took $$((SECONDS - start))s"
	@start=$$SECONDS; $(MAKE) --no-print-directory test-e2e; echo "end-to-end suite took $$((SECONDS - start))s (tools build included)"

# The order matters only for reading the output: cheap checks fail first.
# TestMadeArchive checks the archive of make image against make build's
# binary; it runs without -race, which would make its gzip take half a minute.
# TestImageUserOpensARootDriversSocket runs that binary as the archive's
# user against a root driver's socket (as root: CI is).
test-unit: vet fmt-check license-check vendor-check deps-check verify-vuln image
	mkdir -p _output
	CSI_RESIZER_IMAGE="$(abspath $(IMAGE_ARCHIVE))" CSI_RESIZER_BIN="$(CURDIR)/bin/$(BINARY)" CSI_RESIZER_IMAGE_REF="$(IMAGE):$(IMAGE_TAG)" \
		$(GO) test -v -run '^(TestMadeArchive|TestImageUserOpensARootDriversSocket)$$' ./hack/image
	$(GO) test -race -coverpkg=./pkg/... -coverprofile=_output/coverage.out ./...
	@echo "Total statement coverage of ./pkg/...:"
	@$(GO) tool cover -func=_output/coverage.out | tail -1

# The e2e suite runs the binaries `make build` makes, as the Dockerfile does:
# the resizer, as the user of make image's image (E2E_IMAGE), and the
# kubectl plugin (E2E_EXPLAIN).
test-e2e: build image
	tools="$$(hack/build-tools.sh)"; \
	$(GO) build -o _output/csi-test-driver ./test/cmd/csi-test-driver; \
	E2E_TOOLS_DIR="$$tools" E2E_RESIZER="$(CURDIR)/bin/$(BINARY)" E2E_TEST_DRIVER="$(CURDIR)/_output/csi-test-driver" \
		E2E_EXPLAIN="$(CURDIR)/bin/$(PLUGIN)" E2E_IMAGE="$(abspath $(IMAGE_ARCHIVE))" \
		$(GO) test -tags e2e -count=1 -parallel 64 -timeout 30m -v ./test/e2e/... ./test/demo/ 2>&1 | grep -v '^[IWE][0-9]\{4\} '

# `make test-compat` runs the e2e tests of the node, recovery, modification
# and the core resize against the kube-apiserver and kubelet of each older
# minor in COMPAT_MINORS, each pinned by test/tools/compat/v1.NN (written by
# hack/compat-module.sh; the other tools are the default's), built and
# cached like the other tools. The minors' suites run one after the other
# (hack/test-compat.sh; COMPAT_AT_ONCE=3 runs them at the same time): about
# 6 minutes a minor once built, and 3 more a minor to build its tools the
# first time.
COMPAT_MINORS ?= v1.34 v1.35 v1.36
COMPAT_TESTS ?= ^(TestRecoveryMatrix|TestAnnotateFsResizeThroughKubelet|TestKubelet.*|TestModify.*|TestResizeAndModify.*|TestKilled.*|TestControllerOnlyExpansion|TestControllerAndNodeExpansion|TestNodeOnlyDriver|TestOtherDriverAndUnboundClaimsUntouched|TestControlPlaneFailureThenSuccess|TestInfeasibleThenUserLowersRequest|TestQuota.*|TestInUseClaims|TestNodeDeployment|TestExplainResizeStates|TestExplainNodePending)$$
test-compat: build image
	$(GO) build -o _output/csi-test-driver ./test/cmd/csi-test-driver
	E2E_RESIZER="$(CURDIR)/bin/$(BINARY)" E2E_TEST_DRIVER="$(CURDIR)/_output/csi-test-driver" \
		E2E_EXPLAIN="$(CURDIR)/bin/$(PLUGIN)" E2E_IMAGE="$(abspath $(IMAGE_ARCHIVE))" \
		hack/test-compat.sh '$(COMPAT_TESTS)' $(COMPAT_MINORS)

# `make test-chaos` runs the resizer binary through faults (processes killed
# at random, failing and restarting CSI drivers, kubelet killed and started
# again, an API server restart) on the e2e harness, with the test driver of
# test/csidriver as a process and a real kubelet expanding a quarter of the
# claims online (root only); it prints its figures and takes about 4
# minutes. CHAOS_CLAIMS, CHAOS_NODE_CLAIMS, CHAOS_WINDOW and CHAOS_SEED
# shorten or replay a run; CHAOS_NODE_REFUSALS (2) sets how many claims a
# wave has the node refuse (the recovery: lowered, then raised).
test-chaos: build
	tools="$$(hack/build-tools.sh)"; \
	$(GO) build -o _output/csi-test-driver ./test/cmd/csi-test-driver; \
	E2E_TOOLS_DIR="$$tools" E2E_RESIZER="$(CURDIR)/bin/$(BINARY)" E2E_TEST_DRIVER="$(CURDIR)/_output/csi-test-driver" \
		$(GO) test -tags chaos -count=1 -timeout 20m -v ./test/chaos/... 2>&1 | grep -v '^[IWE][0-9]\{4\} '

# `make test-fuzz` runs each fuzz target for FUZZTIME, one after the other
# (plain `go test` only replays their committed corpora), and prints how many
# inputs each tried. A target that fails makes the run fail after the others
# have run; go test writes the failing input to that package's
# testdata/fuzz/<Target>/ and prints how to replay it. A target that fails
# only with "context deadline exceeded" and writes no input hit a race in
# go1.26's fuzzing coordinator at the end of -fuzztime (golang/go#75804,
# fixed in go1.27): it runs once more.
FUZZTIME ?= 20s
FUZZ_TARGETS ?= FuzzDecide:./pkg/decide/ FuzzCheck:./pkg/ownership/ FuzzBytesOf:./pkg/driver/ \
	FuzzCheckCapacity:./pkg/controller/ FuzzResolveTemplate:./pkg/secrets/ \
	FuzzModifyDecide:./pkg/decide/ FuzzClaim:./pkg/decide/
test-fuzz:
	@mkdir -p _output; summary=""; failed=""; \
	for target in $(FUZZ_TARGETS); do \
		name="$${target%%:*}"; pkg="$${target#*:}"; log="_output/fuzz-$$name.log"; \
		echo "== $$name ($$pkg) for $(FUZZTIME)"; \
		for try in 1 2; do \
			if $(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) "$$pkg" 2>&1 | tee "$$log"; then \
				result="ok"; break; \
			fi; \
			result="FAILED (see $$log)"; \
			if [[ $$try == 1 ]] && grep -qx '[[:space:]]*context deadline exceeded' "$$log" && \
				[[ -z "$$(git ls-files --others --exclude-standard -- "$$pkg/testdata/fuzz/$$name")" ]]; then \
				echo "== $$name: go1.26's fuzzing coordinator failed on its own -fuzztime deadline, with no failing input (golang/go#75804, fixed in go1.27): running it again"; \
				continue; \
			fi; \
			failed="$$failed $$name"; break; \
		done; \
		execs="$$(grep -o 'execs: [0-9]*' "$$log" | tail -1 | tr -dc 0-9 || true)"; \
		summary="$$summary$$(printf '%-22s %-20s %12s execs in %s: %s' "$$name" "$$pkg" "$${execs:-?}" "$(FUZZTIME)" "$$result")\n"; \
	done; \
	printf '\nFuzzing summary:\n%b' "$$summary"; \
	if [[ -n "$$failed" ]]; then \
		echo "Fuzzing failed:$$failed. The failing inputs (replay with the 'go test -run=' lines above):"; \
		git ls-files --others --exclude-standard -- '*/testdata/fuzz/*' | sed 's/^/  /'; \
		exit 1; \
	fi

# `make demo` runs the resizer for real with no cluster: a local control
# plane, the CSI mock driver, a real kubelet (on a fake container runtime)
# that mounts the claim and does the node step of its expansion, and the
# resizer; DEMO_ARGS=--keep keeps them running afterwards, and builds the
# kubectl plugin too, to explain the claim with. kubelet needs root: without
# it, make demo says so before it builds anything.
# It builds only what it runs (not helm), and the demo program with the
# resizer's flags, so that the packages they share are compiled once.
demo:
	@if [[ "$$(id -u)" != 0 ]]; then \
		echo "make demo: the node step of the resize is done by a real kubelet, which needs root: run make demo as root, or with sudo" >&2; exit 1; \
	fi
	@echo "make demo: builds the resizer, then (once, cached) etcd, kube-apiserver, kubelet, the CSI mock, a fake container runtime and a driver registrar from the Go module proxy: the first run takes about 6 minutes on 2 cores, later runs under a minute"
	@$(MAKE) --no-print-directory resizer $(if $(findstring --keep,$(DEMO_ARGS)),plugin)
	tools="$$(hack/build-tools.sh etcd kube-apiserver csi-mock kubelet cri-fake csi-registrar)"; \
	E2E_TOOLS_DIR="$$tools" E2E_RESIZER="$(CURDIR)/bin/$(BINARY)" CGO_ENABLED=0 $(GO) run -trimpath ./test/demo $(DEMO_ARGS)

# `make bench` measures what the resizer costs (docs/benchmarks.md): N claims
# grown at once and N claims changing VolumeAttributesClass at once, each at
# two API budgets, memory with 10,000 claims and volumes, the latency of one
# resize, a /metrics scrape with 10,000 and 50,000 claims, and 10,000 claims
# on 50 nodes grown by one resizer, then by one --node-deployment resizer per
# node, against the components of the e2e suite. It takes about 30 minutes
# (BENCH_ARGS=-mode=all,-nodes leaves the node comparison out, about 20);
# BENCH_ARGS=-h lists its flags, and BENCH_ARGS='-n 50 -modify-n 50 -memory-n
# 500 -scrape-n 500,1000 -nodes 5 -nodes-n 500 -nodes-idle 10s -svg=' is a
# quick check that leaves docs/ alone. Progress goes to stderr, a markdown
# report to stdout.
bench: build
	@mkdir -p _output
	@$(GO) build -o _output/bench ./test/bench
	@tools="$$(hack/build-tools.sh)"; \
	E2E_TOOLS_DIR="$$tools" E2E_RESIZER="$(CURDIR)/bin/$(BINARY)" _output/bench $(BENCH_ARGS)

vet:
	$(GO) vet ./...
	$(GO) vet -tags e2e ./test/e2e/... ./test/demo/
	$(GO) vet -tags chaos ./test/chaos/...

# gofmt knows nothing of packages or vendor/, so it gets the file list.
fmt-check:
	@files="$$(find . \( -path ./vendor -o -path ./.git -o -path ./_output -o -path ./bin \) -prune \
		-o -type f -name '*.go' -print0 | xargs -0 -r gofmt -l)"; \
	if [[ -n "$$files" ]]; then \
		echo "These files need gofmt -w:"; echo "$$files"; exit 1; \
	fi; \
	echo "gofmt: OK"

license-check:
	hack/verify-license.sh

vendor-check:
	hack/verify-vendor.sh

# The tools module pins the libraries it shares with the resizer at the same
# versions, so that a first `make demo` compiles them once.
deps-check:
	hack/verify-shared-deps.sh

# No known vulnerability may be reachable from ./cmd/... (the resizer and
# the kubectl plugin), by govulncheck and the vulnerability database pinned
# in hack/vuln/go.mod, read from the module proxy: no other site is needed.
# Bump that pin before a release (docs/release.md).
verify-vuln:
	hack/verify-vuln.sh

# `make image` writes the resizer's image for IMAGE_PLATFORMS to
# IMAGE_ARCHIVE, an OCI image layout in a tar archive, with no daemon and no
# base image: hack/image puts make build's binary for each platform (the
# same command, GOOS and GOARCH set) on the few files of distroless/static
# the resizer needs; root as upstream's image (65532 may be chosen: README), no shell, and the same digest from
# the same commit. The README says how to push it.
IMAGE_BINARIES := $(foreach p,$(IMAGE_PLATFORMS),_output/image/$(subst /,_,$(p))/$(BINARY))

image: resizer $(IMAGE_BINARIES)
	$(GO) run ./hack/image -o $(IMAGE_ARCHIVE) -name $(IMAGE):$(IMAGE_TAG) -version $(VERSION) \
		-revision $(REVISION) -created $(SOURCE_DATE_EPOCH) \
		$(foreach p,$(IMAGE_PLATFORMS),$(p)=_output/image/$(subst /,_,$(p))/$(BINARY))

# go build itself knows whether a binary is up to date.
_output/image/%/$(BINARY): FORCE
	GOOS=$(word 1,$(subst _, ,$*)) GOARCH=$(word 2,$(subst _, ,$*)) $(GOBUILD) -o $@ ./cmd/$(BINARY)

# `make container` builds the image with Docker instead, from the Dockerfile
# (for one platform; docker buildx build --platform for more).
container:
	docker build --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMAGE):$(IMAGE_TAG) .

clean:
	rm -rf bin _output
