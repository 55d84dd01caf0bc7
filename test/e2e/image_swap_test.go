//go:build e2e

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

package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestImageSwapInADriversPod is "swap the image; nothing else changes" in
// the pod of a driver that runs as root: the driver (the CSI mock, a root
// process) makes its socket as root does, srwxr-xr-x root, in the one
// socket directory both containers share; the resizer runs as the user of
// the image make image wrote (E2E_IMAGE); the claim is resized. Every test
// of the suite runs the resizer that way; this one checks the shape.
func TestImageSwapInADriversPod(t *testing.T) {
	if tools.ResizerUser == nil {
		t.Fatal("E2E_IMAGE must name the archive of make image: make test-e2e sets it")
	}
	e := newEnv(t, framework.DriverOptions{})
	info, err := os.Stat(e.driver.Socket)
	must(t, err)
	st := info.Sys().(*syscall.Stat_t)
	if info.Mode() != fs.ModeSocket|0o755 || st.Uid != 0 {
		t.Fatalf("the driver's socket is %v, uid %d; want srwxr-xr-x of root, as a root driver makes it", info.Mode(), st.Uid)
	}
	if got := processUID(t, e.resizer.Pid()); got != tools.ResizerUser.Uid {
		t.Fatalf("the resizer runs as uid %d, want the image's %d", got, tools.ResizerUser.Uid)
	}

	v := e.volume("data", "1Gi")
	e.grow("data", "2Gi")
	e.waitClaim("data", "the resize to finish", finished("2Gi"))
	if got := e.pvSize(v); got != "2Gi" {
		t.Errorf("PV size = %s, want 2Gi", got)
	}
}

// processUID reads the real uid of process pid.
func processUID(t *testing.T, pid int) uint32 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	must(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			var uid uint32
			if _, err := fmt.Sscan(rest, &uid); err == nil {
				return uid
			}
		}
	}
	t.Fatalf("no Uid line in /proc/%d/status", pid)
	return 0
}
