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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
)

// Answer is one scripted answer: the next call of Method (on VolumeID, when
// set) waits Delay (and any delay or hold armed), then answers Code with
// Message instead of being served; it is recorded as calls failed by FailCall
// are. It is the format of an entry of Config.FaultFile, which reads the
// scripts of the e2e framework's csi-mock too:
//
//	[{"method": "NodeExpandVolume", "code": "Internal", "message": "disk on fire", "volumeID": "vol-1"}]
type Answer struct {
	// Method is a full gRPC method name or its last part, such as
	// "NodeExpandVolume"; empty means "ControllerExpandVolume".
	Method string `json:"method,omitempty"`
	// Code is a gRPC code name as codes.Code.String spells it ("Internal",
	// "NotFound"); the upper-case names of the gRPC spec ("NOT_FOUND") are
	// read too. "OK" or empty lets the call be served as usual (after the
	// delay): it only uses up the answer, to script a failure of a later
	// call.
	Code string `json:"code,omitempty"`
	// Message is the error's message; empty means "scripted <code>".
	Message string `json:"message,omitempty"`
	// VolumeID, when set, keeps the answer for a call on that volume.
	VolumeID string `json:"volumeID,omitempty"`
	// Delay is how long the call waits before it answers, as
	// time.ParseDuration reads it ("2s"); empty means no wait. The wait
	// ends early when the caller gives up.
	Delay string `json:"delay,omitempty"`
	// Size and Capacity are csi-mock's alone (see its package doc): this
	// driver refuses them.
	Size     string `json:"size,omitempty"`
	Capacity string `json:"capacity,omitempty"`
	// Generation plays no part in the answer. A fault file is read again
	// only when its content changes: a writer that numbers its writes here
	// makes a second write of the same answers arm them again.
	Generation int64 `json:"generation,omitempty"`
	// code and delay are Code and Delay read (see parseAnswers).
	code  codes.Code
	delay time.Duration
}

// script is the scripted answers not taken yet, guarded by Driver.mu, and
// the fault file as last read (empty before the first read and when missing).
type script struct {
	content []byte
	answers []Answer
}

// WriteFaultFile replaces the fault file at path with answers. The new
// content is renamed into place, so that a driver never reads half of it.
func WriteFaultFile(path string, answers []Answer) error {
	if answers == nil {
		answers = []Answer{}
	}
	data, err := json.Marshal(answers)
	if err == nil {
		err = replaceFile(path, data)
	}
	if err != nil {
		return fmt.Errorf("write fault file: %w", err)
	}
	return nil
}

// replaceFile replaces the file at path with data: it writes a temporary
// file and renames it into place, so that a reader never reads half of the
// new content, and a writer killed meanwhile leaves the old one.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// takeScriptedLocked returns the scripted delay and error of one call of
// method (its short name) on volumeID, if any, and uses up its
// answer. d.mu must be held.
func (d *Driver) takeScriptedLocked(method, volumeID string) taken {
	d.reloadScriptLocked()
	for i, a := range d.script.answers {
		if path.Base(a.Method) != method {
			continue
		}
		if a.VolumeID != "" && a.VolumeID != volumeID {
			continue
		}
		d.script.answers = append(d.script.answers[:i:i], d.script.answers[i+1:]...)
		f := taken{delay: a.delay}
		if a.code != codes.OK {
			msg := a.Message
			if msg == "" {
				msg = "scripted " + a.code.String()
			}
			f.err = status.Error(a.code, msg)
		}
		return f
	}
	return taken{}
}

// reloadScriptLocked reads Config.FaultFile and replaces the answers when
// the content changed since it was last read. A file that cannot be read
// or parsed is logged and scripts nothing. d.mu must be held; the file is
// read under it so that two calls cannot apply two versions out of order.
func (d *Driver) reloadScriptLocked() {
	if d.cfg.FaultFile == "" {
		return
	}
	data, err := os.ReadFile(d.cfg.FaultFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		klog.Background().Error(err, "Failed to read the test driver's fault file", "path", d.cfg.FaultFile)
		return
	}
	if bytes.Equal(data, d.script.content) {
		return
	}
	d.script.content = data
	d.script.answers = nil
	if len(bytes.TrimSpace(data)) == 0 {
		return
	}
	var answers, parsed []Answer
	if err = json.Unmarshal(data, &answers); err == nil {
		parsed, err = parseAnswers(answers)
	}
	if err != nil {
		klog.Background().Error(err, "Ignoring the test driver's malformed fault file", "path", d.cfg.FaultFile)
		return
	}
	d.script.answers = parsed
	klog.Background().V(2).Info("Test driver scripted", "path", d.cfg.FaultFile, "answers", len(parsed))
}

// parseAnswers reads the methods, codes and delays of answers.
func parseAnswers(answers []Answer) ([]Answer, error) {
	parsed := make([]Answer, 0, len(answers))
	for i, a := range answers {
		if a.Method == "" {
			a.Method = MethodExpand
		}
		if a.Code == "" {
			a.Code = codes.OK.String()
		}
		if a.Size != "" || a.Capacity != "" {
			return nil, fmt.Errorf("scripted answer %d: csi-mock's size and capacity are not this driver's", i)
		}
		var err error
		if a.code, err = parseCode(a.Code); err != nil {
			return nil, fmt.Errorf("scripted answer %d: %w", i, err)
		}
		if a.Delay != "" {
			if a.delay, err = time.ParseDuration(a.Delay); err != nil || a.delay < 0 {
				return nil, fmt.Errorf("scripted answer %d: bad delay %q", i, a.Delay)
			}
		}
		parsed = append(parsed, a)
	}
	return parsed, nil
}

// parseCode reads a gRPC code name as codes.Code.String spells it
// ("NotFound"), or as the gRPC spec does ("NOT_FOUND").
func parseCode(name string) (codes.Code, error) {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == name {
			return c, nil
		}
	}
	var c codes.Code
	if name != "" && c.UnmarshalJSON([]byte(`"`+name+`"`)) == nil {
		return c, nil
	}
	return 0, fmt.Errorf("unknown gRPC code %q", name)
}
