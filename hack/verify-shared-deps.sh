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

# verify-shared-deps.sh checks that every module the resizer and the demo
# compile has the same version in the tools module (test/tools), which builds
# kube-apiserver, etcd and the CSI mock. Go's build cache then compiles the
# libraries they share (client-go, grpc, golang.org/x/...) once: a cold
# `make demo` would otherwise compile them twice.

set -euo pipefail

# The toolchain the Makefile names (GOTOOLCHAIN), when run alone.
: "${GOTOOLCHAIN:=go1.27.3}"
export GOTOOLCHAIN

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
main_pkgs=(./cmd/csi-resizer ./test/demo)
tools_pkgs=(k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubelet ./cmd/etcd ./cmd/csi-mock ./cmd/cri-fake ./cmd/csi-registrar)
format='{{with .Module}}{{.Path}} {{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}{{end}}'

main="$(cd "$root" && go list -deps -f "$format" "${main_pkgs[@]}" | sort -u)"
tools="$(cd "$root/test/tools" && go list -mod=readonly -deps -f "$format" "${tools_pkgs[@]}" | sort -u)"

# Modules in both lists whose versions differ; modules of only one are fine.
differ="$(join <(echo "$main") <(echo "$tools") | awk '$2 != $3 {print "  " $1 ": main module " $2 ", tools module " $3}')"
if [[ -n "$differ" ]]; then
	echo "the main module and test/tools pin different versions of libraries they share:" >&2
	echo "$differ" >&2
	echo "align them (go get in the module with the lower version) so that one compile serves both" >&2
	exit 1
fi
