/*
Copyright 2026 The csi-resizer Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package decide holds every decision of the resizer's two jobs, volume
// expansion and volume modification, as pure functions of what a claim, its
// volume and the resizer's memory say: which job runs, what it does next,
// who owns the next step, why, and what a failed driver call means. It does
// no I/O; the controller carries the decisions out, and the metrics and the
// kubectl plugin render the same values.
package decide
