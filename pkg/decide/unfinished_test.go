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

package decide

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

func TestUnfinished(t *testing.T) {
	both := claim(request("2Gi"), allocated("2Gi"), withStatus(v1.PersistentVolumeClaimNodeResizePending),
		condition(fileSystemResizing, t1), modifyStatus(v1.PersistentVolumeClaimModifyVolumeInProgress), condition(modifying, t2))
	tests := []struct {
		name  string
		claim *slim.Claim
		want  []Entry
	}{
		{name: "in no state", claim: claim(), want: nil},
		{name: "resize only", claim: claim(condition(resizing, t1)),
			want: []Entry{entry(OpResize, ControllerInProgress, t1, resizing)}},
		{name: "modify only", claim: claim(modifyStatus(v1.PersistentVolumeClaimModifyVolumePending)),
			want: []Entry{{Key: Key{OpModify, ModifyPending}}}},
		{name: "both, resize first", claim: both,
			want: []Entry{entry(OpResize, NodePending, t1, fileSystemResizing), entry(OpModify, ModifyInProgress, t2, modifying)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unfinished(tc.claim, nil); !slices.Equal(got, tc.want) {
				t.Errorf("Of = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestAppendAllocatesNothingWithRoom(t *testing.T) {
	c := claim(request("3Gi"), allocated("2Gi"), withStatus(v1.PersistentVolumeClaimControllerResizeInProgress),
		condition(resizing, t1), condition(controllerError, t2), modifyStatus(v1.PersistentVolumeClaimModifyVolumeInfeasible))
	var buf [2]Entry
	allocs := testing.AllocsPerRun(100, func() {
		if got := AppendUnfinished(buf[:0], c, always); len(got) != 2 {
			t.Fatalf("Append gave %d entries, want 2", len(got))
		}
	})
	if allocs != 0 {
		t.Errorf("Append allocated %v times, want 0", allocs)
	}
}

// TestKnownCoversEveryState checks that Known lists each state once, under
// the operation it belongs to, so that the metrics report each of them.
func TestKnownCoversEveryState(t *testing.T) {
	want := map[Key]bool{
		{OpResize, ControllerInProgress}: true, {OpResize, ControllerError}: true, {OpResize, ControllerInfeasible}: true,
		{OpResize, WaitingInUse}: true, {OpResize, NodePending}: true, {OpResize, NodeInProgress}: true, {OpResize, NodeInfeasible}: true,
		{OpModify, ModifyPending}: true, {OpModify, ModifyInProgress}: true, {OpModify, ModifyInfeasible}: true,
	}
	known := KnownStages()
	seen := map[Key]bool{}
	for _, k := range known {
		if !want[k] || seen[k] {
			t.Errorf("Known has %v: unknown or twice", k)
		}
		seen[k] = true
	}
	if len(seen) != len(want) {
		t.Errorf("Known = %v, want the %d keys %v", known, len(want), want)
	}
	known[0].State = "changed"
	if KnownStages()[0].State == "changed" {
		t.Error("changing the result of Known changed the next one")
	}
}
