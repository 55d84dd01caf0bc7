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

// Command csi-mock serves the CSI mock driver of Kubernetes' own csi-mock
// e2e tests on a unix socket, with a gRPC interceptor that injects faults
// into and records every ControllerExpandVolume and ControllerModifyVolume
// call, and the node calls kubelet makes (NodeExpandVolume, NodeStageVolume,
// NodeUnstageVolume, NodePublishVolume, NodeUnpublishVolume). The e2e suite
// and `make demo` run it (test/e2e/framework: Driver.Script writes its fault
// file).
//
// # The fault file
//
// --fault-file names a JSON list of scripted answers, every field optional:
//
//	[
//	  {"volumeID": "vol-2", "code": "OutOfRange", "message": "at most 5Gi per volume"},
//	  {"method": "ControllerModifyVolume", "delay": "8s"},
//	  {"method": "NodeExpandVolume", "volumeID": "vol-1", "code": "Internal", "message": "resize2fs failed"}
//	]
//
// Its fields:
//
//   - method: the short name of one of the calls above; empty is
//     ControllerExpandVolume. Other calls are never scripted.
//   - volumeID: the call's volume_id (the PV's spec.csi.volumeHandle); an
//     entry without one answers a call on any volume.
//   - delay: how long the call waits before it answers ("8s", as Go's
//     time.ParseDuration reads it). The wait ends early when the caller gives
//     up, and the call then fails with Canceled or DeadlineExceeded.
//   - code, message: a gRPC code as Go names it ("OutOfRange"): after the
//     delay the call fails with it, and the mock does not see it. Empty (or
//     "OK") lets the mock answer as usual, so an entry may only delay a call,
//     or only use up its turn. A name that is no code is logged, and
//     answered as empty.
//   - size: a quantity ("3Gi") or bytes: the entry answers only a call that
//     asks for exactly that size (the required bytes of ControllerExpandVolume
//     or NodeExpandVolume), so that a script can refuse 3Gi however often it
//     is asked for, and let 2Gi through.
//   - capacity: a size, for ControllerExpandVolume: a call the entry lets
//     through answers this capacity_bytes instead of what it asked for, less
//     (a short answer) or more (a rounding driver).
//
// Each call of a scripted method takes the first entry, in file order, of its
// method whose volumeID and size are empty or its own, and uses it up; the
// others stay, in their order. An entry that names a volume is taken by that
// volume's calls only, however many other claims grow meanwhile, while one
// without goes to the next call of its method on any volume, even before a
// later entry that names that volume: with several volumes in play, name the
// volume. A call that finds no entry is answered by the mock.
//
// The file is read again at every scripted call, and its entries replace
// those left whenever its content changes: write the new list to another file
// and rename it over the fault file, so that no call reads half of it. The
// same content written again re-arms nothing (an entry taken stays taken);
// vary it, or write an empty list between. No file scripts nothing; a file
// that cannot be read leaves the entries as they were; a file that is not
// such a list is logged and scripts nothing.
//
// --call-log and --received-log record each scripted call when it ends and
// when it arrives (one JSON line each): a call in the received log and not
// yet in the call log is held by its delay.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"
	mockdriver "k8s.io/kubernetes/test/e2e/storage/drivers/csi-test/driver"
	mockservice "k8s.io/kubernetes/test/e2e/storage/drivers/csi-test/mock/service"
)

func main() {
	var (
		endpoint  = flag.String("endpoint", "", "Path of the unix socket to serve on.")
		name      = flag.String("driver-name", "csi-mock.example.com", "Driver name answered by GetPluginInfo.")
		nodeStep  = flag.Bool("node-expansion-required", false, "Answer node_expansion_required=true.")
		noCtrl    = flag.Bool("disable-controller-expansion", false, "Do not advertise controller EXPAND_VOLUME (node-only driver).")
		offline   = flag.Bool("disable-online-expansion", false, "Advertise OFFLINE expansion only.")
		modify    = flag.Bool("modify", false, "Advertise the controller capability MODIFY_VOLUME (the mock's ControllerModifyVolume succeeds); without it, MODIFY_VOLUME is not advertised.")
		faultFile = flag.String("fault-file", "", "JSON list of scripted answers, each {\"method\", \"volumeID\", \"size\", \"code\", \"message\", \"delay\", \"capacity\"}: a call of ControllerExpandVolume (an empty method), ControllerModifyVolume, NodeExpandVolume, NodeStageVolume, NodeUnstageVolume, NodePublishVolume or NodeUnpublishVolume takes and uses up the first entry, in file order, of its method, of its volume and of its size (an entry without volumeID matches any volume, one without size any size), waits delay, then fails with code (a gRPC code name) or, without code, answers normally (ControllerExpandVolume with capacity as its capacity_bytes, when set); the file is read again whenever its content changes, and replaces the entries left. See the package documentation (in test/tools: go doc ./cmd/csi-mock).")
		unit      = flag.Int64("allocation-unit", 0, "Allocate whole units of this many bytes: a successful ControllerExpandVolume answers the required bytes rounded up to a multiple.")
		callLog   = flag.String("call-log", "", "File to append one JSON line to per call of a scripted method, when it ends.")
		received  = flag.String("received-log", "", "File to append one JSON line to per call of a scripted method as soon as it arrives, before its scripted delay ({\"method\", \"volumeID\", \"path\", \"parameters\", \"start\", \"delay\"}, no secrets): a call there and not yet in --call-log is held by the driver.")
	)
	klog.InitFlags(nil)
	flag.Parse()
	if *endpoint == "" {
		fmt.Fprintln(os.Stderr, "csi-mock: --endpoint is required")
		os.Exit(2)
	}
	svc := mockservice.New(mockservice.Config{
		DriverName:                 *name,
		NodeExpansionRequired:      *nodeStep,
		DisableControllerExpansion: *noCtrl,
		DisableOnlineExpansion:     *offline,
		DisableAttach:              true,
	})
	drv := mockdriver.NewCSIDriver(&mockdriver.CSIDriverServers{Controller: svc, Identity: svc, Node: svc})
	_ = os.Remove(*endpoint)
	l, err := net.Listen("unix", *endpoint)
	if err != nil {
		fmt.Fprintf(os.Stderr, "csi-mock: listen on %s: %v\n", *endpoint, err)
		os.Exit(1)
	}
	faults := &interceptor{faultFile: *faultFile, callLog: *callLog, receivedLog: *received, modify: *modify, allocationUnit: *unit}
	if err := drv.Start(l, faults.intercept); err != nil {
		fmt.Fprintf(os.Stderr, "csi-mock: start: %v\n", err)
		os.Exit(1)
	}
	klog.InfoS("CSI mock driver serving", "endpoint", *endpoint, "driver", *name, "modify", *modify)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	<-ctx.Done()
	drv.Stop()
}
