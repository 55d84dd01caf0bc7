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

package framework

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// AuditEvent is what the suite and the benchmark read of one request in the API server's
// audit log: who did what to which object, and for the writes of claims
// the object the API server answered (see auditPolicy).
type AuditEvent struct {
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	// ObjectRef is empty for requests that name no object (discovery,
	// /version).
	ObjectRef struct {
		Resource    string `json:"resource"`
		APIGroup    string `json:"apiGroup"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	// ResponseObject is the object answered; only writes of claims have it.
	ResponseObject json.RawMessage `json:"responseObject,omitempty"`
	Stage          string          `json:"stage"`
	Received       time.Time       `json:"requestReceivedTimestamp"`
	// StageTimestamp is when the stage was reached: at ResponseComplete,
	// when the answer was sent.
	StageTimestamp time.Time `json:"stageTimestamp"`
}

// FromKubelet reports whether kubelet made the request.
func (e AuditEvent) FromKubelet() bool { return strings.HasPrefix(e.UserAgent, "kubelet/") }

// AuditEvents returns the completed requests of the cluster's audit log
// received in [from, to) that match.
func (c *Cluster) AuditEvents(from, to time.Time, match func(AuditEvent) bool) ([]AuditEvent, error) {
	f, err := os.Open(c.AuditLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AuditEvent
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for s.Scan() {
		var e AuditEvent
		if err := json.Unmarshal(s.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("audit log %s: %w", c.AuditLog, err)
		}
		if e.Stage == "ResponseComplete" && !e.Received.Before(from) && e.Received.Before(to) && match(e) {
			out = append(out, e)
		}
	}
	return out, s.Err()
}
