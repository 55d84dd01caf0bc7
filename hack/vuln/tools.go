//go:build tools

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

// Package vuln pins what `make verify-vuln` (hack/verify-vuln.sh) runs:
// govulncheck, and the Go vulnerability database, which is itself a Go
// module (golang.org/x/vulndb): its data/osv folder holds the reports, and
// its indexdb command turns them into the database govulncheck reads from
// a file:// URL, so that the check needs the module proxy and no other
// site. Bump golang.org/x/vulndb (go get golang.org/x/vulndb@<newest>;
// go mod tidy) before every release: docs/release.md.
package vuln

import (
	_ "golang.org/x/vuln/cmd/govulncheck"
	_ "golang.org/x/vulndb/cmd/indexdb"
)
