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

package controller

import (
	"errors"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

// writeObserver records the failed writes the controller reports.
type writeObserver struct{ failures []string }

func (o *writeObserver) ObserveResize(string, time.Duration) {}
func (o *writeObserver) ObserveModify(string, time.Duration) {}
func (o *writeObserver) ObserveWriteFailure(resource, code string) {
	o.failures = append(o.failures, resource+" "+code)
}

// bufferedLogs gives e a logger and returns what it logged so far.
func bufferedLogs(t *testing.T, e *env) func() string {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	e.ctx = klog.NewContext(e.ctx, logger)
	return func() string { return logger.GetSink().(ktesting.Underlier).GetBuffer().String() }
}

// TestRefusedWriteIsLoud: a write the API server refuses (the resizer's
// RBAC) is logged as an error that names the verb, the resource and the
// resizer's user, and counted by code; a conflict is neither.
func TestRefusedWriteIsLoud(t *testing.T) {
	const user = "system:serviceaccount:kube-system:csi-resizer"
	forbidden := apierrors.NewForbidden(v1.Resource("persistentvolumeclaims"), "a", errors.New(`User "`+user+`" cannot patch resource "persistentvolumeclaims/status"`))
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "persistentvolumes"}, "pv-a", nil)
	tests := []struct {
		name, res string
		err       error
		want      []string
		wantLog   bool
	}{
		{name: "RBAC refuses the claim's status", res: "persistentvolumeclaims", err: forbidden, want: []string{"persistentvolumeclaims/status 403"}, wantLog: true},
		{name: "the server does not answer the PV patch", res: "persistentvolumes", err: errors.New("connection refused"), want: []string{"persistentvolumes error"}},
		{name: "a conflict is no failure", res: "persistentvolumes", err: conflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "2Gi", "1Gi")
			observer := &writeObserver{}
			e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi")), func(c *Config) { c.Observer, c.Identity = observer, user })
			logs := bufferedLogs(t, e)
			e.failRequest("patch", tc.res, 1, tc.err)
			if _, err := e.sync("a"); err == nil {
				t.Fatal("want the failed write to requeue the claim")
			}
			equal(t, "failed writes", observer.failures, tc.want)
			refused := "ERROR The API server refused a write: check the resizer's RBAC"
			named := `verb="patch" resource="persistentvolumeclaims/status" user="` + user + `"`
			if got := strings.Contains(logs(), refused) && strings.Contains(logs(), named); got != tc.wantLog {
				t.Errorf("error log of the refusal naming verb, resource and user: %v, want %v\n%s", got, tc.wantLog, logs())
			}
		})
	}
}

// TestRepeatedFailureIsAnError: the first failures of a claim's sync are
// logged at level 2, from the third in a row on as an error.
func TestRepeatedFailureIsAnError(t *testing.T) {
	e := newEnv(t, nil, nil)
	logs := bufferedLogs(t, e)
	logger := klog.FromContext(e.ctx)
	for range repeatedFailures {
		e.ctrl.retryLater(logger, ns+"/a", errors.New("etcd is down"))
	}
	if n := strings.Count(logs(), "ERROR Claim keeps failing; retried with backoff"); n != 1 {
		t.Errorf("error logs after %d failures: %d, want 1\n%s", repeatedFailures, n, logs())
	}
	e.ctrl.queue.Forget(ns + "/a")
	e.ctrl.retryLater(logger, ns+"/a", errors.New("etcd is down"))
	if n := strings.Count(logs(), "ERROR Claim keeps failing; retried with backoff"); n != 1 {
		t.Errorf("a first failure after a success logged as an error\n%s", logs())
	}
}
