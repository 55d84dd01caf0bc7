#!/usr/bin/env bash
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

# build-tools.sh builds the real components of the end-to-end suite from the
# pinned tools module (test/tools): etcd, kube-apiserver, the CSI mock driver,
# and a node (kubelet, the fake container runtime it runs pods on, and the
# registrar that introduces a CSI driver to it); and helm and promtool at
# their pinned releases. Usage: build-tools.sh [tool...] (default: all).
#
# With COMPAT=v1.NN, kube-apiserver and kubelet are those of the older
# release that test/tools/compat/v1.NN pins (hack/compat-module.sh writes
# it), for `make test-compat`; the other tools stay the default module's.
#
# Each tool is cached in a folder of its own, keyed by the Kubernetes version
# and a hash of what goes into that tool only (a change to the CSI mock does
# not rebuild kube-apiserver). The tools asked for are linked into one folder,
# which is printed on stdout; progress goes to stderr.

set -euo pipefail

# The toolchain the Makefile names (GOTOOLCHAIN), when run alone.
: "${GOTOOLCHAIN:=go1.27.3}"
export GOTOOLCHAIN

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/test/tools"

cache="${TOOLS_CACHE:-$root/_output/tools}"
version="$(awk '$1 == "k8s.io/kubernetes" {print $2}' go.mod)"
compat_dir="" compat_version=""
if [[ -n "${COMPAT:-}" ]]; then
	compat_dir="$root/test/tools/compat/$COMPAT"
	if [[ ! -f "$compat_dir/go.mod" ]]; then
		echo "build-tools: no module for COMPAT=$COMPAT in test/tools/compat (write it with hack/compat-module.sh v1.NN.P)" >&2
		exit 1
	fi
	compat_version="$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" {print $3}' "$compat_dir/go.mod")"
fi
helm_version=v3.22.0
# Prometheus v3.16.0: its Go module is tagged v0.316.0 (v0.3xx.y is 3.xx.y).
promtool_version=v0.316.0
all=(etcd kube-apiserver csi-mock kubelet cri-fake csi-registrar helm promtool)
tools=("${@:-${all[@]}}")

# inputs prints what a tool is built from: the module pins, its own sources,
# this script and the Go version.
inputs() {
	local name="$1" dir
	dir="$(module_dir "$name")"
	cat "$dir/go.mod" "$dir/go.sum" "$root/hack/build-tools.sh" <(go version)
	case "$name" in
	etcd | csi-mock | cri-fake | csi-registrar) cat "cmd/$name"/*.go ;;
	kube-apiserver | kubelet) ;;
	helm) echo "$helm_version" ;;
	promtool) echo "$promtool_version" ;;
	*)
		echo "build-tools: unknown tool $name (known: ${all[*]})" >&2
		return 1
		;;
	esac
}

# minutes is a rough first-build time on 2 cores, said before building;
# kube-apiserver's assumes the resizer was built first (see
# build_module_tools): every make target that needs the tools builds it
# first.
minutes() {
	case "$1" in
	kube-apiserver) echo 2 ;;
	etcd | kubelet) echo 1 ;;
	helm) echo 3 ;;
	promtool) echo 4 ;;
	*) echo 0 ;;
	esac
}

# compat_tool is true for a tool that COMPAT builds at the older release.
compat_tool() {
	[[ -n "$compat_dir" && ("$1" == kube-apiserver || "$1" == kubelet) ]]
}

# module_dir prints the folder of the module a tool is built from.
module_dir() {
	if compat_tool "$1"; then
		echo "$compat_dir"
	else
		echo "$root/test/tools"
	fi
}

# version_of prints the version a tool is built at.
version_of() {
	case "$1" in
	helm) echo "$helm_version" ;;
	promtool) echo "$promtool_version" ;;
	*) if compat_tool "$1"; then echo "$compat_version"; else echo "$version"; fi ;;
	esac
}

tool_dir() {
	local name="$1" key
	key="$(inputs "$name" | sha256sum | cut -c1-12)"
	echo "$cache/$name-$(version_of "$name")-$key"
}

# ldflags are the flags that stamp a Kubernetes version into a tool.
ldflags() {
	local v="$1"
	echo "-s -w -X k8s.io/component-base/version.gitVersion=$v" \
		"-X k8s.io/component-base/version.gitMajor=$(echo "${v#v}" | cut -d. -f1)" \
		"-X k8s.io/component-base/version.gitMinor=$(echo "${v#v}" | cut -d. -f2)"
}

# package is the Go package of a tool of the tools module.
package() {
	case "$1" in
	etcd | csi-mock | cri-fake | csi-registrar) echo "./cmd/$1" ;;
	kube-apiserver | kubelet) echo "k8s.io/kubernetes/cmd/$1" ;;
	esac
}

# alive runs a command, saying every 30 s that it still runs.
alive() {
	local what="$1" start=$SECONDS
	shift
	"$@" &
	local pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		if kill -0 "$pid" 2>/dev/null && (((SECONDS - start) % 30 < 5)); then
			echo "build-tools: still building $what ($((SECONDS - start))s)" >&2
		fi
	done
	wait "$pid"
	echo "build-tools: built $what in $((SECONDS - start))s" >&2
}

# The tools of the module are built by one go build, which compiles the
# packages they share once and keeps both cores busy to the end. helm and
# promtool are not part of the tools module: their own go.mod files pin their
# own libraries (Kubernetes', Prometheus'), so each is installed at its pinned
# release.
#
# The resizer is built with the same flags (-trimpath, CGO_ENABLED=0) and the
# tools module pins the same versions of the libraries both use (client-go,
# grpc, golang.org/x/...; hack/verify-shared-deps.sh checks it), so Go's build
# cache compiles those libraries once for the resizer and the tools alike.
build_module_tools() {
	local staging pkgs=() first="$1"
	for name in "$@"; do
		pkgs+=("$(package "$name")")
	done
	staging="$(mktemp -d "$cache/.staging.XXXXXX")"
	(cd "$(module_dir "$first")" && alive "$*" env CGO_ENABLED=0 go build -mod=readonly -trimpath \
		-ldflags "$(ldflags "$(version_of "$first")")" -o "$staging/" "${pkgs[@]}")
	for name in "$@"; do
		mkdir -p "$(tool_dir "$name")"
		mv "$staging/$name" "$(tool_dir "$name")/$name"
	done
	rm -rf "$staging"
}

build_helm() {
	local dir
	dir="$(tool_dir helm)"
	mkdir -p "$dir"
	alive helm env GOBIN="$dir/bin" GOFLAGS=-buildvcs=false go install -trimpath \
		-ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version" \
		"helm.sh/helm/v3/cmd/helm@$helm_version"
	mv "$dir/bin/helm" "$dir/helm"
	rmdir "$dir/bin"
}

# promtool checks and unit-tests the chart's alerting rules. remove_all_sd
# leaves out Prometheus' service discoveries (cloud SDKs, Kubernetes' client),
# which rule checks do not use: it halves the build.
build_promtool() {
	local dir
	dir="$(tool_dir promtool)"
	mkdir -p "$dir"
	alive promtool env GOBIN="$dir/bin" GOFLAGS=-buildvcs=false go install -trimpath -tags remove_all_sd \
		-ldflags "-s -w -X github.com/prometheus/common/version.Version=3.${promtool_version#v0.3}" \
		"github.com/prometheus/prometheus/cmd/promtool@$promtool_version"
	mv "$dir/bin/promtool" "$dir/promtool"
	rmdir "$dir/bin"
}

# One run builds at a time; a run that waited finds the tools built.
mkdir -p "$cache"
exec {lock}>"$cache/.lock"
flock "$lock"
missing=() named=() module=() total=0
for name in "${tools[@]}"; do
	if [[ ! -x "$(tool_dir "$name")/$name" ]]; then
		missing+=("$name")
		named+=("$name $(version_of "$name")")
		total=$((total + $(minutes "$name")))
		[[ "$name" == helm || "$name" == promtool ]] || module+=("$name")
	fi
done
if ((${#missing[@]} > 0)); then
	echo "build-tools: building $(IFS=,; echo "${named[*]}" | sed 's/,/, /g') from the Go module proxy: about $total minutes on 2 cores the first time, cached after that" >&2
fi
# The tools of one module are built by one go build: COMPAT's apart.
default=() older=()
for name in "${module[@]}"; do
	if compat_tool "$name"; then older+=("$name"); else default+=("$name"); fi
done
if ((${#default[@]} > 0)); then
	build_module_tools "${default[@]}"
fi
if ((${#older[@]} > 0)); then
	build_module_tools "${older[@]}"
fi
if [[ " ${missing[*]} " == *" helm "* ]]; then
	build_helm
fi
if [[ " ${missing[*]} " == *" promtool "* ]]; then
	build_promtool
fi
exec {lock}>&-

out="$cache/$version-$(for name in "${tools[@]}"; do tool_dir "$name"; done | sha256sum | cut -c1-12)"
mkdir -p "$out"
for name in "${tools[@]}"; do
	ln -sfn "$(tool_dir "$name")/$name" "$out/$name"
done
echo "$out"
