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

package driver

import (
	"context"
	"strings"
	"testing"
	"time"

	csispec "github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// TestDriverNonsense checks what the CSI resizer hands the controller when
// the driver answers nonsense. Judging the size is the controller's job
// (checkCapacity); the resizer must pass it on faithfully and keep the
// driver's gRPC code, whatever it is.
func TestDriverNonsense(t *testing.T) {
	answer := func(resp *csispec.ControllerExpandVolumeResponse, err error) func(*csidriver.Driver) {
		return func(d *csidriver.Driver) {
			d.SetExpandHook(func(context.Context, *csispec.ControllerExpandVolumeRequest) (*csispec.ControllerExpandVolumeResponse, bool, error) {
				return resp, true, err
			})
		}
	}
	capacity := func(c int64) func(*csidriver.Driver) { return func(d *csidriver.Driver) { d.SetExpandCapacity(c) } }
	tests := []struct {
		name      string
		arm       func(*csidriver.Driver)
		wantSize  string
		wantCode  codes.Code
		wantClass decide.Class
	}{
		{name: "capacity 0 is passed on as 0", arm: capacity(0), wantSize: "0"},
		{name: "smaller capacity is passed on", arm: capacity(1 << 30), wantSize: "1Gi"},
		{name: "negative capacity is passed on", arm: capacity(-1), wantSize: "-1"},
		{name: "absurdly larger capacity is passed on", arm: capacity(1 << 60), wantSize: "1Ei"},
		{name: "OK with a nil response reads as capacity 0", arm: answer(nil, nil), wantSize: "0"},
		{name: "Unknown is final", arm: answer(nil, status.Error(codes.Unknown, "?")), wantCode: codes.Unknown, wantClass: decide.Final},
		{name: "code 42 is kept, and final", arm: answer(nil, status.Error(codes.Code(42), "?")), wantCode: codes.Code(42), wantClass: decide.Final},
		{name: "code 1<<31 reads as Unknown (malformed grpc-status), final", arm: answer(nil, status.Error(codes.Code(1<<31), "?")), wantCode: codes.Unknown, wantClass: decide.Final},
		{name: "an error with a response drops the response", arm: answer(&csispec.ControllerExpandVolumeResponse{CapacityBytes: 4 << 30}, status.Error(codes.Aborted, "busy")),
			wantCode: codes.Aborted, wantClass: decide.Uncertain},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ControllerExpand: true})
			tc.arm(d)
			size, _, err := (&VolumeExpander{Driver: c}).Expand(context.Background(), csiVolume("vol-1"), resource.MustParse("2Gi"), nil)
			if tc.wantCode != codes.OK {
				if err == nil || status.Code(err) != tc.wantCode || decide.ResizeRules.ClassOf(err) != tc.wantClass {
					t.Fatalf("Expand error = %v (class %s), want code %s, class %s", err, decide.ResizeRules.ClassOf(err), tc.wantCode, tc.wantClass)
				}
				if !size.IsZero() {
					t.Errorf("size %s returned with an error", size.String())
				}
				return
			}
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			if size.String() != tc.wantSize {
				t.Errorf("size = %s, want %s", size.String(), tc.wantSize)
			}
		})
	}
}

// TestRefusedBeforeTheDriver holds the requests the resizer cannot build.
// Nothing reaches the driver, so the failure is certain: classed
// infeasible, it is recorded in the claim and a changed request is tried at
// once, where an uncertain failure would hold the claim at that size.
func TestRefusedBeforeTheDriver(t *testing.T) {
	rwx := csiVolume("vol-1")
	rwx.Spec.AccessModes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod, v1.ReadWriteMany}
	vsphere := csiVolume("")
	vsphere.Spec.CSI = nil
	vsphere.Spec.VsphereVolume = &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] vol.vmdk"}
	tests := []struct {
		name     string
		pv       *v1.PersistentVolume
		target   string
		wantCode codes.Code
		wantMsg  string
	}{
		// ("9Ei" would not do: apimachinery parses binary sizes beyond int64 as 2^63-1.)
		{name: "size beyond int64", pv: csiVolume("vol-1"), target: "10E", wantCode: codes.OutOfRange, wantMsg: "size 10E is too large for a CSI request"},
		{name: "8Ei + 1", pv: csiVolume("vol-1"), target: "9223372036854775809", wantCode: codes.OutOfRange, wantMsg: "is too large for a CSI request"},
		{name: "size too large to compare", pv: csiVolume("vol-1"), target: "1e2000000000", wantCode: codes.OutOfRange, wantMsg: "is out of range"},
		{name: "zero size", pv: csiVolume("vol-1"), target: "0", wantCode: codes.InvalidArgument, wantMsg: "invalid size 0"},
		{name: "negative size", pv: csiVolume("vol-1"), target: "-1Gi", wantCode: codes.InvalidArgument, wantMsg: "invalid size -1Gi"},
		{name: "conflicting access modes", pv: rwx, target: "2Gi", wantCode: codes.InvalidArgument, wantMsg: "ReadWriteOncePod with other access modes"},
		{name: "untranslatable in-tree volume", pv: vsphere, target: "2Gi", wantCode: codes.InvalidArgument, wantMsg: "vsphereVolume is not translated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ControllerExpand: true})
			done := make(chan error, 1)
			go func() {
				_, _, err := (&VolumeExpander{Driver: c}).Expand(context.Background(), tc.pv, resource.MustParse(tc.target), nil)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Expand did not return")
			}
			if status.Code(err) != tc.wantCode || decide.ResizeRules.ClassOf(err) != decide.Infeasible {
				t.Fatalf("Expand error = %v (code %s, class %s), want code %s, infeasible", err, status.Code(err), decide.ResizeRules.ClassOf(err), tc.wantCode)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) || strings.HasPrefix(err.Error(), "rpc error") {
				t.Errorf("error %q: want %q, and no sign of a driver answer", err, tc.wantMsg)
			}
			if n := len(d.Calls()); n != 0 {
				t.Errorf("driver called %d times", n)
			}
		})
	}
}

// TestDriverStopsMidCall stops the driver while it holds the call: Expand
// ends with an error classed uncertain (the driver may have grown the volume).
func TestDriverStopsMidCall(t *testing.T) {
	d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ControllerExpand: true})
	arrived := make(chan struct{}, 1)
	d.SetExpandHook(func(context.Context, *csispec.ControllerExpandVolumeRequest) (*csispec.ControllerExpandVolumeResponse, bool, error) {
		arrived <- struct{}{}
		return nil, false, nil
	})
	release := d.HoldExpand()
	defer release()
	done := make(chan error, 1)
	go func() {
		_, _, err := (&VolumeExpander{Driver: c}).Expand(context.Background(), csiVolume("vol-1"), resource.MustParse("2Gi"), nil)
		done <- err
	}()
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never reached the driver")
	}
	d.Stop()
	select {
	case err := <-done:
		if err == nil || decide.ResizeRules.ClassOf(err) != decide.Uncertain {
			t.Fatalf("Expand error = %v (class %s), want an uncertain error", err, decide.ResizeRules.ClassOf(err))
		}
		t.Logf("error when the driver stopped: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Expand did not return after the driver stopped")
	}
}
