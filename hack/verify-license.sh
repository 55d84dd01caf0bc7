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

# verify-license.sh checks that every Go file outside vendor/ starts with the
# license header of hack/boilerplate.go.txt. The year may differ, so that a
# file written next year passes with its own year.

set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

header="hack/boilerplate.go.txt"
lines="$(wc -l <"$header")"

normalize() {
	sed -E '2s/^Copyright [0-9]{4} /Copyright YEAR /'
}

want="$(normalize <"$header")"
bad=()
while IFS= read -r -d '' file; do
	skip=0
	# A build constraint must come first; the header follows it.
	if head -n 1 "$file" | grep -q '^//go:build '; then
		skip=2
	fi
	if [[ "$(tail -n +"$((skip + 1))" "$file" | head -n "$lines" | normalize)" != "$want" ]]; then
		bad+=("${file#./}")
	fi
done < <(find . \( -path ./vendor -o -path ./.git -o -path ./_output -o -path ./bin \) -prune -o -type f -name '*.go' -print0 | sort -z)

if ((${#bad[@]} > 0)); then
	echo "These files do not start with the license header of $header:" >&2
	printf '  %s\n' "${bad[@]}" >&2
	exit 1
fi
echo "License headers: OK"
