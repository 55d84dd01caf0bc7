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
	"bytes"
	"context"
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// answer is one scripted answer: a delay, then an error code (or the mock's
// own answer when Code is empty).
type answer struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Delay   string `json:"delay,omitempty"`
}

// call is one ControllerExpandVolume as the call log records it.
type call struct {
	VolumeID      string            `json:"volumeID"`
	RequiredBytes int64             `json:"requiredBytes"`
	Secrets       map[string]string `json:"secrets,omitempty"`
	Start         time.Time         `json:"start"`
	End           time.Time         `json:"end"`
	Code          string            `json:"code"`
	CapacityBytes int64             `json:"capacityBytes,omitempty"`
	NodeStep      bool              `json:"nodeExpansionRequired,omitempty"`
}

// interceptor scripts ControllerExpandVolume from a file that tests
// rewrite, and logs each call.
type interceptor struct {
	faultFile, callLog string

	mu      sync.Mutex
	loaded  []byte
	pending []answer
}

func (i *interceptor) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	expand, ok := req.(*csi.ControllerExpandVolumeRequest)
	if !ok {
		return handler(ctx, req)
	}
	c := call{VolumeID: expand.GetVolumeId(), RequiredBytes: expand.GetCapacityRange().GetRequiredBytes(),
		Secrets: expand.GetSecrets(), Start: time.Now()}
	resp, err := i.answer(ctx, req, handler)
	c.End, c.Code = time.Now(), status.Code(err).String()
	if r, ok := resp.(*csi.ControllerExpandVolumeResponse); ok {
		c.CapacityBytes, c.NodeStep = r.GetCapacityBytes(), r.GetNodeExpansionRequired()
	}
	i.log(c)
	return resp, err
}

func (i *interceptor) answer(ctx context.Context, req any, handler grpc.UnaryHandler) (any, error) {
	a := i.next()
	if d, err := time.ParseDuration(a.Delay); err == nil && d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	if code, ok := codeNamed(a.Code); ok {
		return nil, status.Error(code, a.Message)
	}
	return handler(ctx, req)
}

// codeNamed maps a code's Go name ("OutOfRange") to the code.
func codeNamed(name string) (codes.Code, bool) {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == name && c != codes.OK {
			return c, true
		}
	}
	return codes.OK, false
}

// next pops the next scripted answer; the script is reloaded whenever the
// file's content changes.
func (i *interceptor) next() answer {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.faultFile != "" {
		if data, err := os.ReadFile(i.faultFile); err == nil && !bytes.Equal(data, i.loaded) {
			i.loaded = data
			i.pending = nil
			_ = json.Unmarshal(data, &i.pending)
		}
	}
	if len(i.pending) == 0 {
		return answer{}
	}
	a := i.pending[0]
	i.pending = i.pending[1:]
	return a
}

func (i *interceptor) log(c call) {
	if i.callLog == "" {
		return
	}
	line, _ := json.Marshal(c)
	i.mu.Lock()
	defer i.mu.Unlock()
	f, err := os.OpenFile(i.callLog, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}
