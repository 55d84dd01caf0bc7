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

// Command csi-test-driver serves the test driver of test/csidriver as a
// process, for the chaos and end-to-end tests, to the resizer and to a real
// kubelet (as a node plugin): its volumes survive restarts (--state-file),
// every ControllerExpandVolume, ControllerModifyVolume and node call is
// logged with the caller's pid (--call-log), a seeded share of controller
// calls fails or hangs, and a test scripts the answers of any call through
// a file it rewrites (--fault-file).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

func main() {
	o := bindFlags(flag.CommandLine)
	klog.InitFlags(nil)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "csi-test-driver:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends (SIGTERM or SIGINT).
func run(ctx context.Context, o *options) error {
	if o.endpoint == "" {
		return errors.New("--endpoint is required")
	}
	if o.faultsUntil != "" {
		until, err := time.Parse(time.RFC3339Nano, o.faultsUntil)
		if err != nil {
			return fmt.Errorf("--faults-until: %w", err)
		}
		o.faults.Until = until
	}
	cfg := o.config
	cfg.Online = true
	if o.callLog != "" {
		log, err := csidriver.OpenCallLog(o.callLog)
		if err != nil {
			return err
		}
		defer log.Close()
		cfg.OnExpandCall = log.Record
		cfg.OnModifyCall = log.RecordModify
		cfg.OnNodeCall = log.RecordNode
	}
	d, err := csidriver.Serve(o.endpoint, cfg)
	if err != nil {
		return err
	}
	defer d.Stop()
	if o.faults.FailRate > 0 || o.faults.HangRate > 0 {
		expand, modify := o.faults.Hooks()
		d.SetExpandHook(expand)
		d.SetModifyHook(modify)
	}
	d.SetExpandDelay(o.latency)
	d.SetModifyDelay(o.latency)
	klog.InfoS("CSI test driver serving", "endpoint", o.endpoint, "driver", cfg.DriverName, "pid", os.Getpid(),
		"modify", cfg.ControllerModify, "allocationUnit", cfg.AllocationUnit,
		"nodeID", cfg.NodeID, "controllerExpand", cfg.ControllerExpand, "nodeExpand", cfg.NodeExpand, "faultFile", cfg.FaultFile,
		"failRate", o.faults.FailRate, "hangRate", o.faults.HangRate, "hangFor", o.faults.HangFor,
		"seed", o.faults.Seed, "faultsUntil", o.faults.Until)
	<-ctx.Done()
	return nil
}
