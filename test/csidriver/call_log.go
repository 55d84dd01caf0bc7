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

package csidriver

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"
)

// LoggedCall is one line of a call log: a ControllerExpandVolume,
// ControllerModifyVolume or node call as a driver process saw it, without
// its secrets. A call is logged when it arrives, when its caller stops
// waiting before the end (controller calls only), and when it ends;
// ReadCallLog merges the lines of a call.
type LoggedCall struct {
	// Driver is the pid of the driver process that served the call; with Seq
	// it names the call across restarts of the driver.
	Driver int `json:"driver"`
	// Seq numbers the calls of one driver process from 1, all methods together.
	Seq int `json:"seq"`
	// Method is one of MethodExpand ... MethodNodeExpand. ReadCallLog reads
	// a line without it, from a log written before modify calls were
	// logged, as MethodExpand.
	Method string `json:"method,omitempty"`
	// Pid is the caller's pid (from the socket's peer credentials).
	Pid      int    `json:"pid"`
	VolumeID string `json:"volumeID"`
	// Path is a node call's staging, target or volume path (see NodeCall).
	Path string `json:"path,omitempty"`
	// RequiredBytes is the size an expand call (controller or node) asked for.
	RequiredBytes int64 `json:"requiredBytes"`
	// Parameters are the mutable parameters a modify call sent.
	Parameters map[string]string `json:"parameters,omitempty"`
	// Secrets are the secrets a controller call carried: csi-mock's call
	// log has them, for the tests that check them; this driver's has not.
	Secrets map[string]string `json:"secrets,omitempty"`
	// Delay is, in csi-mock's log of received calls, the scripted delay
	// the call is held for.
	Delay string    `json:"delay,omitempty"`
	Start time.Time `json:"start"`
	// End is zero while the call runs, and stays zero when the driver died
	// before the call ended.
	End        time.Time `json:"end,omitzero"`
	Deadline   time.Time `json:"deadline,omitzero"`
	CallerGone time.Time `json:"callerGone,omitzero"`
	// Code is the gRPC code name of the answer; empty while the call runs.
	Code                  string `json:"code,omitempty"`
	CapacityBytes         int64  `json:"capacityBytes,omitempty"`
	NodeExpansionRequired bool   `json:"nodeExpansionRequired,omitempty"`
}

// Ended reports whether the driver answered the call.
func (c LoggedCall) Ended() bool { return !c.End.IsZero() }

// Node reports whether the call is a node call.
func (c LoggedCall) Node() bool { return slices.Contains(nodeMethods, c.Method) }

// CallLog appends the calls of one driver process to a JSON-lines file that
// outlives the process. Use its Record method as Config.OnCall; like an
// os.File, it is safe for concurrent use.
type CallLog struct {
	driver int
	f      *os.File
}

// OpenCallLog opens (or creates) the call log at path for appending.
func OpenCallLog(path string) (*CallLog, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open call log: %w", err)
	}
	return &CallLog{driver: os.Getpid(), f: f}, nil
}

// Record appends a call as one line, without its secrets.
func (l *CallLog) Record(call Call) {
	c := LoggedCall{
		Driver: l.driver, Seq: call.Seq, Method: call.Method, Pid: call.Pid, VolumeID: call.VolumeID, Path: call.Path,
		RequiredBytes: call.RequiredBytes, Parameters: call.MutableParameters, Start: call.Start, End: call.End,
		Deadline: call.Deadline, CallerGone: call.CallerGone,
		CapacityBytes: call.CapacityBytes, NodeExpansionRequired: call.NodeExpansionRequired,
	}
	if call.Ended() {
		c.Code = call.Code.String()
	}
	// One write per line to a file opened for appending: a killed driver
	// leaves whole lines only, and concurrent calls do not mix theirs.
	if line, err := json.Marshal(c); err == nil {
		_, _ = l.f.Write(append(line, '\n'))
	}
}

// Close closes the file.
func (l *CallLog) Close() error { return l.f.Close() }

// ReadCallLog reads a call log: one entry per call of any method, the
// last line logged for it, in order of arrival. A missing file holds no
// calls. It reads csi-mock's call logs too, whose lines have no Seq: one
// line a call.
func ReadCallLog(path string) ([]LoggedCall, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read call log: %w", err)
	}
	defer f.Close()
	type key struct{ driver, seq int }
	index := map[key]int{}
	var calls []LoggedCall
	s := bufio.NewScanner(f)
	for s.Scan() {
		var c LoggedCall
		if err := json.Unmarshal(s.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("read call log %s: %w", path, err)
		}
		if c.Method == "" {
			c.Method = MethodExpand
		}
		k := key{c.Driver, c.Seq}
		if i, ok := index[k]; ok && c.Seq > 0 {
			calls[i] = merge(calls[i], c)
			continue
		}
		index[k] = len(calls)
		calls = append(calls, c)
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("read call log %s: %w", path, err)
	}
	slices.SortStableFunc(calls, func(a, b LoggedCall) int { return a.Start.Compare(b.Start) })
	return calls, nil
}

// merge adds what a later line says of a call to what was known. The lines
// of one call may be written out of order: the caller's leaving and the end
// are observed on different goroutines.
func merge(known, line LoggedCall) LoggedCall {
	if line.Ended() && !known.Ended() {
		gone := known.CallerGone
		known = line
		if known.CallerGone.IsZero() {
			known.CallerGone = gone
		}
	}
	if known.CallerGone.IsZero() {
		known.CallerGone = line.CallerGone
	}
	return known
}
