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

# verify-vuln.sh fails if a known vulnerability is reachable from the
# binaries we ship (./cmd/...: the resizer and the kubectl plugin), in a
# module they use or in the standard library of the Go toolchain that
# builds them. It needs the Go module proxy and nothing else: govulncheck
# and the vulnerability database are the versions hack/vuln/go.mod pins, and
# the database is built from the reports of the Go module golang.org/x/vulndb
# (its data/osv folder) by that module's indexdb, then read by govulncheck
# from a file:// URL. So the check knows what the pinned database knew on
# its date, no more: bump the pin before a release (docs/release.md).
#
# govulncheck's own report lists each reachable vulnerability with the
# module and version it was found in and the version that fixes it. Those
# only imported, or only required, and never called are counted in its last
# lines and do not fail the check.
#
# The two commands and the database are cached in a folder of TOOLS_CACHE
# (as hack/build-tools.sh's tools are) keyed by the pins, this script and
# the Go version; without it they are built, about 2 minutes on 2 cores.

set -euo pipefail

# The toolchain the Makefile names (GOTOOLCHAIN), when run alone.
: "${GOTOOLCHAIN:=go1.27.3}"
export GOTOOLCHAIN

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/hack/vuln"

cache="${TOOLS_CACHE:-$root/_output/tools}"
vuln_version="$(awk '$1 == "golang.org/x/vuln" {print $2}' go.mod)"
vulndb_version="$(awk '$1 == "golang.org/x/vulndb" {print $2}' go.mod)"
key="$(cat go.mod go.sum tools.go "$root/hack/verify-vuln.sh" <(go version) | sha256sum | cut -c1-12)"
dir="$cache/govulncheck-$vuln_version-$key"
# The database's date, from the pin's pseudo-version (v0.0.0-YYYYMMDD...).
db_date="$(sed -E 's/^v0\.0\.0-([0-9]{4})([0-9]{2})([0-9]{2}).*/\1-\2-\3/' <<<"$vulndb_version")"

# Built in a folder of its own and renamed into place, so that a folder in
# the cache is whole, and two runs sharing the cache may build at once.
if [[ ! -x "$dir/govulncheck" || ! -f "$dir/db/index/db.json" ]]; then
	start=$SECONDS
	echo "verify-vuln: building govulncheck $vuln_version and the vulnerability database of golang.org/x/vulndb $vulndb_version ($db_date; about 2 minutes on 2 cores the first time, cached after that)" >&2
	mkdir -p "$cache"
	staging="$(mktemp -d "$cache/.staging.XXXXXX")"
	trap 'rm -rf "$staging"' EXIT
	go build -mod=readonly -trimpath -o "$staging/" golang.org/x/vuln/cmd/govulncheck golang.org/x/vulndb/cmd/indexdb
	go mod download golang.org/x/vulndb
	reports="$(go list -mod=readonly -m -f '{{.Dir}}' golang.org/x/vulndb)/data/osv"
	"$staging/indexdb" -vulns "$reports" -out "$staging/db"
	# A run that finished first has put its folder there: the same build.
	mv -T "$staging" "$dir" 2>/dev/null || [[ -f "$dir/db/index/db.json" ]]
	echo "verify-vuln: built in $((SECONDS - start))s" >&2
fi

cd "$root"
status=0
report="$("$dir/govulncheck" -db "file://$dir/db" ./cmd/...)" || status=$?
echo "$report"
found="$(grep -c '^Vulnerability #' <<<"$report" || true)"
case "$status" in
0)
	echo "verify-vuln: no known vulnerability reachable from ./cmd/... ($(go env GOVERSION), govulncheck $vuln_version, database of $db_date: golang.org/x/vulndb $vulndb_version)"
	;;
3)
	echo "verify-vuln: $found known vulnerabilities reachable from ./cmd/... (above, each with the version that fixes it): raise the module (go get <module>@<fixed>; go mod tidy; go mod vendor), or for the standard library the GOTOOLCHAIN of the Makefile, .ci/run and hack/*.sh" >&2
	exit 1
	;;
*)
	echo "verify-vuln: govulncheck failed (exit status $status)" >&2
	exit "$status"
	;;
esac
