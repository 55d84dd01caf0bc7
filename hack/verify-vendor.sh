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

# verify-vendor.sh checks that go.mod, go.sum and vendor/ are exactly what
# `go mod tidy && go mod vendor` produce, and that git tracks every file of
# vendor/ (a file that .gitignore hides would be missing from a clone).
#
# The two commands run on a copy of the tree, never on the tree itself, so
# that the check cannot rewrite a developer's files. They need the module
# cache or a reachable GOPROXY.

set -euo pipefail

# The toolchain the Makefile names (GOTOOLCHAIN), when run alone.
: "${GOTOOLCHAIN:=go1.27.3}"
export GOTOOLCHAIN

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

tar --exclude=./.git --exclude=./bin --exclude=./_output -cf - . | tar -xf - -C "$tmp"
# A GOFLAGS of -mod=vendor would make `go mod tidy` refuse to run.
(cd "$tmp" && GOFLAGS= go mod tidy && GOFLAGS= go mod vendor)

status=0
for path in go.mod go.sum vendor; do
	if ! out="$(diff -r "$path" "$tmp/$path" 2>&1)"; then
		echo "$path differs from what 'go mod tidy && go mod vendor' produce:" >&2
		head -n 50 <<<"$out" >&2
		status=1
	fi
done

if command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Untracked files, ignored ones included: neither would be in a clone.
	untracked="$(git ls-files --others -- vendor)"
	if [[ -n "$untracked" ]]; then
		echo "Files in vendor/ that git does not track (check .gitignore, then git add):" >&2
		sed 's/^/  /' <<<"$untracked" >&2
		status=1
	fi
else
	echo "Not a git checkout: skipping the check for untracked vendor files." >&2
fi

if ((status != 0)); then
	echo "Run 'go mod tidy && go mod vendor' and commit the result." >&2
	exit "$status"
fi
echo "go.mod, go.sum and vendor/: OK"
