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

# test-compat.sh runs the e2e tests named by the regular expression $1
# against the kube-apiserver and kubelet of each older minor named after it
# (v1.34 ...), for `make test-compat`. It builds each minor's tools first,
# one after the other (a build keeps both cores busy), then runs the suites,
# each with a control plane of its own, COMPAT_AT_ONCE at a time (see
# below). Each suite's output goes to _output/compat-v1.NN.log and
# is printed, filtered of klog lines, when all have ended; the run fails if
# any suite failed.
#
# The binaries under test are the Makefile's: E2E_RESIZER, E2E_TEST_DRIVER,
# E2E_EXPLAIN and E2E_IMAGE must be set.

set -euo pipefail

: "${GOTOOLCHAIN:=go1.27.3}"
export GOTOOLCHAIN

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tests="$1"
shift
minors=("$@")

declare -A tools
for minor in "${minors[@]}"; do
	tools[$minor]="$(COMPAT=$minor "$root/hack/build-tools.sh" etcd kube-apiserver csi-mock kubelet cri-fake csi-registrar)"
done

# The suites share one test binary, built once.
mkdir -p "$root/_output"
bin="$root/_output/e2e.test"
(cd "$root" && go test -tags e2e -c -o "$bin" ./test/e2e/)

# run runs one minor's suite from the package's folder (its files name
# deploy/ relative to it) and records how long it took.
run() {
	local minor="$1" start=$SECONDS rc=0
	(cd "$root/test/e2e" && E2E_TOOLS_DIR="${tools[$minor]}" "$bin" -test.count=1 -test.parallel=64 \
		-test.timeout=20m -test.v -test.run="$tests") >"$root/_output/compat-$minor.log" 2>&1 || rc=$?
	echo "$rc $((SECONDS - start))" >"$root/_output/compat-$minor.result"
}

# COMPAT_AT_ONCE minors run at a time (1 by default): three suites at once
# on two cores slow the resizer's watch events past the matrix's "at once"
# bound (a v1.36 run saw 3.9 s for 3 s).
at_once="${COMPAT_AT_ONCE:-1}"
for minor in "${minors[@]}"; do
	while (($(jobs -rp | wc -l) >= at_once)); do
		wait -n || true
	done
	echo "test-compat: $minor: kube-apiserver and kubelet $("${tools[$minor]}/kube-apiserver" --version | cut -d' ' -f2)"
	run "$minor" &
done
wait

failed=()
summary=""
for minor in "${minors[@]}"; do
	read -r rc took <"$root/_output/compat-$minor.result"
	echo "=== test-compat: $minor"
	grep -v '^[IWE][0-9]\{4\} ' "$root/_output/compat-$minor.log" || true
	if ((rc == 0)); then
		summary+="$minor: ok in ${took}s"$'\n'
	else
		summary+="$minor: FAILED in ${took}s (exit $rc; log in _output/compat-$minor.log)"$'\n'
		failed+=("$minor")
	fi
done
printf '\ntest-compat summary:\n%s' "$summary"
((${#failed[@]} == 0))
