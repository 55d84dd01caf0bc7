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
	"flag"
	"time"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// options are the command's flags.
type options struct {
	endpoint, stateFile, callLog, faultsUntil string
	latency                                   time.Duration
	config                                    csidriver.Config
	faults                                    csidriver.RandomFaults
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
