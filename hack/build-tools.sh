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
# pinned tools module (test/tools): etcd, kube-apiserver and the CSI mock
# driver. They are cached in a folder keyed by the Kubernetes version and a
# hash of everything that goes into them, so a second run is instant. It
# prints the folder on stdout; progress goes to stderr.

set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/test/tools"

version="$(awk '$1 == "k8s.io/kubernetes" {print $2}' go.mod)"
key="$(cat go.mod go.sum cmd/*/*.go "$root/hack/build-tools.sh" <(go version) | sha256sum | cut -c1-12)"
dir="${TOOLS_CACHE:-$root/_output/tools}/$version-$key"
mkdir -p "$dir"

ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$version"
ldflags+=" -X k8s.io/component-base/version.gitMajor=$(echo "${version#v}" | cut -d. -f1)"
ldflags+=" -X k8s.io/component-base/version.gitMinor=$(echo "${version#v}" | cut -d. -f2)"

build() {
	local name="$1" pkg="$2"
	if [[ -x "$dir/$name" ]]; then
		return
	fi
	echo "build-tools: building $name ($version); a first build can take minutes" >&2
	local start=$SECONDS
	go build -mod=readonly -trimpath -ldflags "$ldflags" -o "$dir/$name.tmp" "$pkg" &
	local pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		if kill -0 "$pid" 2>/dev/null && (((SECONDS - start) % 30 < 5)); then
			echo "build-tools: still building $name ($((SECONDS - start))s)" >&2
		fi
	done
	wait "$pid"
	mv "$dir/$name.tmp" "$dir/$name"
	echo "build-tools: built $name in $((SECONDS - start))s" >&2
}

build etcd ./cmd/etcd
build csi-mock ./cmd/csi-mock
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver

# helm is not part of the tools module: its own go.mod pins its own
# Kubernetes libraries, so it is installed at its pinned release.
helm_version=v3.22.0
if [[ ! -x "$dir/helm" ]]; then
	echo "build-tools: building helm $helm_version" >&2
	start=$SECONDS
	GOBIN="$dir" GOFLAGS=-buildvcs=false go install -trimpath \
		-ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version" \
		"helm.sh/helm/v3/cmd/helm@$helm_version"
	echo "build-tools: built helm in $((SECONDS - start))s" >&2
fi

echo "$dir"
