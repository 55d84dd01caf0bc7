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
// call, as the Kubernetes e2e does.
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
		faultFile = flag.String("fault-file", "", "JSON list of scripted answers, each {\"method\", \"volumeID\", \"code\", \"message\", \"delay\"}: a call of ControllerExpandVolume (an empty method), ControllerModifyVolume, NodeExpandVolume, NodeStageVolume, NodeUnstageVolume, NodePublishVolume or NodeUnpublishVolume takes the first entry of its method and of its volume (an entry without volumeID matches any), waits delay, then fails with code (a gRPC code name) or, without code, answers normally; the file is read again whenever it changes.")
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
