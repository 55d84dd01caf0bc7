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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const resizerUser = "system:serviceaccount:default:csi-resizer"

// auditLine builds an audit.k8s.io/v1 event line as kube-apiserver writes it.
func auditLine(stage, user, verb, uri, objectRef string, code int) string {
	ref := ""
	if objectRef != "" {
		ref = `,"objectRef":{` + objectRef + `}`
	}
	status := ""
	if code != 0 {
		status = `,"responseStatus":{"metadata":{},"code":` + strconv.Itoa(code) + `}`
	}
	return `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a","stage":"` + stage +
		`","requestURI":"` + uri + `","verb":"` + verb + `","user":{"username":"` + user + `","groups":["system:authenticated"]}` +
		`,"sourceIPs":["127.0.0.1"],"userAgent":"csi-resizer"` + ref + status +
		`,"requestReceivedTimestamp":"2026-01-02T03:04:05.000000Z","stageTimestamp":"2026-01-02T03:04:05.123456Z"}`
}

func TestParseAuditLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want request
		ok   bool
	}{
		{
			name: "status patch",
			line: auditLine("ResponseComplete", resizerUser, "patch", "/api/v1/namespaces/ns/persistentvolumeclaims/c/status",
				`"resource":"persistentvolumeclaims","namespace":"ns","name":"c","apiVersion":"v1","subresource":"status"`, 200),
			want: request{requestKey: requestKey{Verb: "patch", Resource: "persistentvolumeclaims", Subresource: "status"}, Code: 200},
			ok:   true,
		},
		{
			name: "API group joins the resource",
			line: auditLine("ResponseComplete", resizerUser, "watch", "/apis/storage.k8s.io/v1/storageclasses?watch=true",
				`"resource":"storageclasses","apiGroup":"storage.k8s.io","apiVersion":"v1"`, 200),
			want: request{requestKey: requestKey{Verb: "watch", Resource: "storageclasses.storage.k8s.io"}, Code: 200},
			ok:   true,
		},
		{
			name: "non-resource request is named by its path",
			line: auditLine("ResponseComplete", resizerUser, "get", "/version?timeout=32s", "", 200),
			want: request{requestKey: requestKey{Verb: "get", Resource: "/version"}, Code: 200},
			ok:   true,
		},
		{
			name: "conflict keeps its code",
			line: auditLine("ResponseComplete", resizerUser, "patch", "/api/v1/persistentvolumes/pv",
				`"resource":"persistentvolumes","name":"pv","apiVersion":"v1"`, 409),
			want: request{requestKey: requestKey{Verb: "patch", Resource: "persistentvolumes"}, Code: 409},
			ok:   true,
		},
		{
			name: "earlier stage is skipped",
			line: auditLine("RequestReceived", resizerUser, "patch", "/api/v1/persistentvolumes/pv", `"resource":"persistentvolumes"`, 0),
		},
		{
			name: "watch still streaming is skipped",
			line: auditLine("ResponseStarted", resizerUser, "watch", "/api/v1/pods?watch=true", `"resource":"pods"`, 200),
		},
		{
			name: "other user is skipped",
			line: auditLine("ResponseComplete", "e2e-admin", "patch", "/api/v1/persistentvolumes/pv", `"resource":"persistentvolumes"`, 200),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, ok, err := parseAuditLine([]byte(tc.line), func(u string) bool { return u == resizerUser })
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			want := tc.want
			want.At = time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC)
			if !got.At.Equal(want.At) {
				t.Errorf("At = %v, want %v", got.At, want.At)
			}
			got.At, want.At = time.Time{}, time.Time{}
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestParseAuditLineMalformed(t *testing.T) {
	if _, _, _, err := parseAuditLine([]byte(`{"stage":`), func(string) bool { return true }); err == nil {
		t.Error("a truncated line parsed")
	}
}

func TestAuditTailFollowsTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	before := auditLine("ResponseComplete", resizerUser, "patch", "/api/v1/persistentvolumes/old", `"resource":"persistentvolumes"`, 200)
	write(t, path, before+"\n")
	tail, err := newAuditTail(path, resizerUser)
	if err != nil {
		t.Fatal(err)
	}
	patch := auditLine("ResponseComplete", resizerUser, "patch", "/api/v1/persistentvolumes/pv", `"resource":"persistentvolumes"`, 200)
	event := auditLine("ResponseComplete", resizerUser, "create", "/api/v1/namespaces/ns/events", `"resource":"events","namespace":"ns"`, 201)
	// A line cut in the middle, as when the server is still writing it.
	write(t, path, patch+"\n"+event[:40])
	if err := tail.poll(); err != nil {
		t.Fatal(err)
	}
	if len(tail.requests) != 1 || tail.requests[0].Resource != "persistentvolumes" {
		t.Fatalf("after the first poll: %+v, want only the PV patch (not the line before the tail started, nor the partial line)", tail.requests)
	}
	write(t, path, event[40:]+"\n")
	if err := tail.poll(); err != nil {
		t.Fatal(err)
	}
	if len(tail.requests) != 2 || tail.requests[1].Resource != "events" {
		t.Fatalf("after the second poll: %+v, want the event too", tail.requests)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		key  requestKey
		want requestClass
	}{
		{name: "status patch", key: requestKey{"patch", "persistentvolumeclaims", "status"}, want: classWrite},
		{name: "PV patch", key: requestKey{"patch", "persistentvolumes", ""}, want: classWrite},
		{name: "event create", key: requestKey{"create", "events", ""}, want: classEvent},
		{name: "event patch (a repeat)", key: requestKey{"patch", "events", ""}, want: classEvent},
		{name: "events.k8s.io event", key: requestKey{"create", "events.events.k8s.io", ""}, want: classEvent},
		{name: "lease update", key: requestKey{"update", "leases.coordination.k8s.io", ""}, want: classWrite},
		{name: "secret get", key: requestKey{"get", "secrets", ""}, want: classRead},
		{name: "watch", key: requestKey{"watch", "pods", ""}, want: classListWatch},
		{name: "list", key: requestKey{"list", "persistentvolumes", ""}, want: classListWatch},
		{name: "unknown verb", key: requestKey{"proxy", "pods", ""}, want: classOther},
		{name: "the resizer asks who it is: a question, not a write", key: requestKey{"create", "selfsubjectreviews.authentication.k8s.io", ""}, want: classRead},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.key); got != tc.want {
				t.Errorf("classify(%v) = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
}

func TestCountAndOrder(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	reqs := []request{
		{requestKey{"watch", "pods", ""}, 200, at},
		{requestKey{"create", "events", ""}, 201, at.Add(time.Second)},
		{requestKey{"patch", "persistentvolumeclaims", "status"}, 200, at.Add(2 * time.Second)},
		{requestKey{"patch", "persistentvolumeclaims", "status"}, 409, at.Add(3 * time.Second)},
		{requestKey{"get", "secrets", ""}, 200, at.Add(4 * time.Second)},
	}
	c := count(reqs)
	if c.ByClass[classWrite] != 2 || c.ByClass[classEvent] != 1 || c.ByClass[classRead] != 1 || c.ByClass[classListWatch] != 1 {
		t.Errorf("by class: %v", c.ByClass)
	}
	if c.ByCode[409] != 1 || c.ByCode[200] != 3 {
		t.Errorf("by code: %v", c.ByCode)
	}
	var order []string
	for _, k := range kinds(c) {
		order = append(order, k.String())
	}
	want := "patch persistentvolumeclaims/status,create events,get secrets,watch pods"
	if got := strings.Join(order, ","); got != want {
		t.Errorf("keys in order %s, want %s", got, want)
	}
	if got := between(reqs, at.Add(time.Second), at.Add(3*time.Second)); len(got) != 3 {
		t.Errorf("between: %d requests, want 3 (both ends included)", len(got))
	}
}

// kube-apiserver renames a full audit log to audit-<time>.log and starts a
// new one; the tail reads the rest of the renamed file, every backup after
// it, then the new file.
func TestAuditTailFollowsRotations(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	line := func(name string) string {
		return auditLine("ResponseComplete", resizerUser, "patch", "/api/v1/persistentvolumes/"+name,
			`"resource":"persistentvolumes","name":"`+name+`"`, 200) + "\n"
	}
	write(t, path, line("before"))
	tail, err := newAuditTail(path, resizerUser)
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, line("a"))
	rotate := func(stamp string) {
		t.Helper()
		if err := os.Rename(path, filepath.Join(dir, "audit-"+stamp+".log")); err != nil {
			t.Fatal(err)
		}
	}
	rotate("2026-01-02T03-04-05.000")
	write(t, path, line("b"))
	rotate("2026-01-02T03-04-06.000")
	write(t, path, line("c"))
	// An older backup that the tail never read must not be read.
	write(t, filepath.Join(dir, "audit-2026-01-01T00-00-00.000.log"), line("old"))
	if err := tail.poll(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ref := range tail.refs {
		names = append(names, ref.Name)
	}
	if got := strings.Join(names, ","); got != "a,b,c" {
		t.Fatalf("read %s, want a,b,c", got)
	}
	write(t, path, line("d"))
	if err := tail.poll(); err != nil {
		t.Fatal(err)
	}
	if len(tail.refs) != 4 || tail.refs[3].Name != "d" {
		t.Fatalf("after the second poll: %+v", tail.refs)
	}
	rotate("2026-01-02T03-04-07.000")
	write(t, path, line("e"))
	// Removed after the new file exists, which so cannot reuse its inode.
	if err := os.Remove(filepath.Join(dir, "audit-2026-01-02T03-04-07.000.log")); err != nil {
		t.Fatal(err)
	}
	if err := tail.poll(); err == nil {
		t.Error("a rotated log whose backup is gone was not reported")
	}
}

func TestForcedCloses(t *testing.T) {
	log := `I1123 02:16:09.992085    1008 cache_watcher.go:203] Forcing persistentvolumeclaims watcher close due to unresponsiveness: key: "/persistentvolumeclaims/", labels: "", fields: "". len(c.input) = 22, len(c.result) = 22, graceful = false
I1123 02:16:10.100000    1008 httplog.go:134] "HTTP" verb="PATCH" URI="/api/v1/namespaces/bench/persistentvolumeclaims/claim-00001/status"
I1123 02:16:11.992085    1008 cache_watcher.go:203] Forcing persistentvolumeclaims watcher close due to unresponsiveness: key: "/persistentvolumeclaims/bench", labels: "", fields: "". len(c.input) = 10, len(c.result) = 10, graceful = false
I1123 02:16:12.992085    1008 cache_watcher.go:203] Forcing persistentvolumeclaims watcher close due to unresponsiveness: key: "/persistentvolumeclaims/", labels: "", fields: "". len(c.input) = 22, len(c.result) = 22, graceful = true
`
	path := filepath.Join(t.TempDir(), "kube-apiserver.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := forcedCloses(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["/persistentvolumeclaims/"] != 2 || got["/persistentvolumeclaims/bench"] != 1 {
		t.Errorf("forced closes = %v", got)
	}
	if !allNamespaces("/persistentvolumeclaims/") || allNamespaces("/persistentvolumeclaims/bench") || !allNamespaces("/persistentvolumes/") {
		t.Error("allNamespaces tells the keys apart wrongly")
	}
}
