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

// options are the command's flags.
type options struct {
	endpoint, callLog, faultsUntil string
	latency                        time.Duration
	config                         csidriver.Config
	faults                         csidriver.RandomFaults
}

// bindFlags defines the command's flags on fs, to be read once fs is parsed.
func bindFlags(fs *flag.FlagSet) *options {
	o := &options{}
	fs.StringVar(&o.endpoint, "endpoint", "", "Path of the unix socket to serve on.")
	fs.StringVar(&o.config.DriverName, "driver-name", "csi-test.example.com", "Driver name answered by GetPluginInfo.")
	fs.StringVar(&o.config.StateFile, "state-file", "", "File that keeps the volume sizes, mutable parameters and node state (file-system sizes, staging and target paths) across restarts.")
	fs.StringVar(&o.callLog, "call-log", "", "File to append one JSON line to when a ControllerExpandVolume, ControllerModifyVolume, NodeStageVolume, NodeUnstageVolume, NodePublishVolume, NodeUnpublishVolume or NodeExpandVolume call starts and when it ends.")
	fs.StringVar(&o.config.NodeID, "node-id", "", "Node ID answered by NodeGetInfo (default "+csidriver.DefaultNodeID+").")
	fs.BoolVar(&o.config.NodeExpand, "node-expand", false, "Advertise the node capability EXPAND_VOLUME and serve NodeExpandVolume.")
	fs.BoolVar(&o.config.ControllerExpand, "controller-expand", true, "Advertise the controller capability EXPAND_VOLUME; false makes a node-only driver, whose NodeExpandVolume grows the volume itself.")
	fs.StringVar(&o.config.FaultFile, "fault-file", "", `JSON list of scripted answers, read again whenever its content changes: [{"method": "NodeExpandVolume", "code": "Internal", "message": "...", "volumeID": "optional"}]. Each call takes the first entry of its method (and volume), in order; rewrite the file atomically (write and rename).`)
	fs.BoolVar(&o.config.NodeExpansionRequired, "node-expansion-required", false, "Answer node_expansion_required=true.")
	fs.BoolVar(&o.config.ControllerModify, "modify", false, "Advertise the controller capability MODIFY_VOLUME.")
	fs.Int64Var(&o.config.AllocationUnit, "allocation-unit", 0, "Allocate whole units of this many bytes: ControllerExpandVolume rounds the required bytes up to a multiple and answers that capacity.")
	fs.Float64Var(&o.faults.FailRate, "fail-rate", 0, "Share of ControllerExpandVolume and ControllerModifyVolume calls answered with Unavailable, DeadlineExceeded or Internal.")
	fs.Float64Var(&o.faults.HangRate, "hang-rate", 0, "Share of ControllerExpandVolume and ControllerModifyVolume calls that hang for --hang-for, whatever the caller does, and then change the volume.")
	fs.DurationVar(&o.faults.HangFor, "hang-for", 30*time.Second, "How long a hanging call hangs; make it longer than the resizer's --timeout.")
	fs.Uint64Var(&o.faults.Seed, "seed", 1, "Seed of the injected faults.")
	fs.StringVar(&o.faultsUntil, "faults-until", "", "RFC 3339 time after which no fault is injected.")
	fs.DurationVar(&o.latency, "latency", 0, "Delay of every ControllerExpandVolume and ControllerModifyVolume call; it ends early when the caller gives up.")
	return o
}

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
		cfg.OnCall = log.Record
	}
	d, err := csidriver.Serve(o.endpoint, cfg)
	if err != nil {
		return err
	}
	defer d.Stop()
	if o.faults.FailRate > 0 || o.faults.HangRate > 0 {
		hook := o.faults.Hook()
		d.SetHook(csidriver.MethodExpand, hook)
		d.SetHook(csidriver.MethodModify, hook)
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
