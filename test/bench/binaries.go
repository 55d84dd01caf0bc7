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

package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// plugin is the kubectl plugin's file name, which `make build` writes next
// to the resizer's.
const plugin = "kubectl-csi_resizer"

// binary is the size of one shipped binary, as `make build` writes it
// (stripped).
type binary struct {
	Name  string
	Bytes int64
}

// measureBinaries stats the resizer binary and the plugin beside it; a
// missing plugin is left out.
func measureBinaries(resizer string) ([]binary, error) {
	var out []binary
	for _, path := range []string{resizer, filepath.Join(filepath.Dir(resizer), plugin)} {
		fi, err := os.Stat(path)
		switch {
		case os.IsNotExist(err) && path != resizer:
			continue
		case err != nil:
			return nil, fmt.Errorf("binary size: %w", err)
		}
		out = append(out, binary{Name: filepath.Base(path), Bytes: fi.Size()})
	}
	return out, nil
}
