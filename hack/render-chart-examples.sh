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

# render-chart-examples.sh renders each deploy/helm/csi-resizer/examples/
# NAME.values.yaml into NAME.yaml beside it, with the pinned helm of
# hack/build-tools.sh: `helm template csi-resizer` in the namespace kube-csi,
# after a header of comment lines. TestChartExamplesUpToDate (test/e2e)
# renders them the same way and fails when a checked-in file differs: run
# this script after a change to the chart or to an example's values.

set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

helm="$(hack/build-tools.sh helm)/helm"
chart=deploy/helm/csi-resizer
shopt -s nullglob
for values in "$chart"/examples/*.values.yaml; do
	out="${values%.values.yaml}.yaml"
	{
		echo "# Rendered by hack/render-chart-examples.sh from $(basename "$values"); do not edit."
		echo "# TestChartExamplesUpToDate (test/e2e) fails when it differs from:"
		echo "#   helm template csi-resizer $chart --namespace kube-csi --values $values"
		"$helm" template csi-resizer "$chart" --namespace kube-csi --values "$values"
	} >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "rendered $out" >&2
done
