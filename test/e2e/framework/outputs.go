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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/component-base/metrics/testutil"
)

// What the components write, read back: the API server's audit log, the
// resizer's metrics (the one scraper of the e2e suite, chaos, the benchmark
// and the demo, through component-base's testutil) and its "Decided" lines.

// AuditEvent is what the suite and the benchmark read of one request in the
// API server's audit log: who did what to which object, and for the writes
// of claims the object the API server answered (see auditPolicy).
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

// ParseMetrics returns the samples of text by metric name; a histogram's
// are under name_bucket, name_sum and name_count. A text that is not of
// the format is an error: the text is checked first, since
// testutil.ParseMetrics alone never returns on one.
func ParseMetrics(text string) (testutil.Metrics, error) {
	if _, err := testutil.TextToMetricFamilies(strings.NewReader(text)); err != nil {
		return nil, err
	}
	m := testutil.NewMetrics()
	return m, testutil.ParseMetrics(text, &m)
}

// HasLabels reports whether s carries each of labels with its value.
func HasLabels(s *testutil.Sample, labels map[string]string) bool {
	for name, value := range labels {
		if string(s.Metric[testutil.LabelName(name)]) != value {
			return false
		}
	}
	return true
}

// MetricValue is the value of the first sample of name with labels (and
// maybe others), and whether there is one.
func MetricValue(m testutil.Metrics, name string, labels map[string]string) (float64, bool) {
	for _, s := range m[name] {
		if HasLabels(s, labels) {
			return float64(s.Value), true
		}
	}
	return 0, false
}

// ScrapeMetrics fetches and parses the /metrics of the diagnostics
// endpoint at addr (host:port).
func ScrapeMetrics(ctx context.Context, addr string) (testutil.Metrics, error) {
	code, body, err := HTTPGet(ctx, addr, "/metrics")
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("GET http://%s/metrics: answered %d", addr, code)
	}
	m, err := ParseMetrics(string(body))
	if err != nil {
		return nil, fmt.Errorf("http://%s/metrics: %w", addr, err)
	}
	return m, nil
}

// HTTPGet fetches a path of the diagnostics endpoint at addr (host:port).
func HTTPGet(ctx context.Context, addr, path string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// Decision is one job's part of a "Decided" entry of the resizer's log,
// which the resizer writes at --v=4 each time it has made a claim's plan
// (decide.Claim), before it acts on it: one entry gives a Decision for each
// job the resizer does.
type Decision struct {
	Claim string // namespace/name
	// Next, Owner and Why are the plan's: the job whose step runs now,
	// who owns the next step, and why (decide.Job, Owner and Why).
	Next, Owner, Why string
	Operation        string // "resize" or "modify"
	// Action is what the resizer decided: "none", "modify", "cancel",
	// "wait", "pend", "refuse"... (the decision packages' names).
	Action, Target, Reason string
}

func (d Decision) String() string {
	return fmt.Sprintf("%s %s: %s %q (%s)", d.Claim, d.Operation, d.Action, d.Target, d.Reason)
}

// LogSize is how many bytes log holds now: the offset from which
// Decisions reads what is written after this moment.
func LogSize(log string) (int64, error) {
	fi, err := os.Stat(log)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// Decisions reads the "Decided" entries of the resizer's text log written
// from byte offset on (see LogSize), in the order they were written; a line
// still being written is left out.
func Decisions(log string, offset int64) ([]Decision, error) {
	f, err := os.Open(log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	var out []Decision
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return out, nil // a partial last line, or none
		}
		if err != nil {
			return nil, err
		}
		out = append(out, parseDecisions(string(bytes.TrimRight(line, "\n")))...)
	}
}

// parseDecisions reads a klog text line such as
//
//	I1124 08:19:23.711767   27769 plan.go:57] "Decided" pvc="ns/data" next="none" owner="nobody" why="settled" resize="none" resizeTarget="0" resizeReason="..." modify="none" modifyTarget="" modifyReason="..."
//
// into a Decision for each job it names; none for any other line.
func parseDecisions(line string) []Decision {
	_, pairs, ok := strings.Cut(line, `] "Decided" `)
	if !ok {
		return nil
	}
	kv := map[string]string{}
	for _, m := range klogPair.FindAllStringSubmatch(pairs, -1) {
		value := m[2]
		if strings.HasPrefix(value, `"`) {
			var err error
			if value, err = strconv.Unquote(value); err != nil {
				return nil
			}
		}
		kv[m[1]] = value
	}
	var out []Decision
	for _, op := range []string{"resize", "modify"} {
		if action, ok := kv[op]; ok {
			out = append(out, Decision{Claim: kv["pvc"], Next: kv["next"], Owner: kv["owner"], Why: kv["why"],
				Operation: op, Action: action, Target: kv[op+"Target"], Reason: kv[op+"Reason"]})
		}
	}
	return out
}

// klogPair is one of klog's key="quoted value" and key=bare pairs.
var klogPair = regexp.MustCompile(`([^ "=]+)=("(?:[^"\\]|\\.)*"|[^ ]*)`)
