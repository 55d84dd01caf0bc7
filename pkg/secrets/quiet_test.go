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

package secrets

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/klog/v2/textlogger"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
)

// TestBelowSink checks the cap itself: every level below 8 passes, 8 and above are neither
// enabled nor written, also through V levels that add up and through derived loggers.
func TestBelowSink(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(10), ktesting.BufferLogs(true)))
	capped := klog.New(newBelowSink(logger.GetSink(), bodyLogLevel))

	for level := 0; level <= 12; level++ {
		if got, want := capped.V(level).Enabled(), level < bodyLogLevel; got != want {
			t.Errorf("V(%d).Enabled() = %v, want %v", level, got, want)
		}
	}
	capped.V(7).Info("at seven")
	capped.V(8).Info("at eight")
	capped.V(10).Info("at ten")
	capped.V(2).V(5).Info("at two plus five")
	capped.V(4).V(4).Info("at four plus four")
	derived := capped.WithName("client").WithValues("k", "v")
	derived.V(6).Info("derived at six")
	derived.V(9).Info("derived at nine")
	capped.WithCallDepth(1).V(8).Info("deeper at eight")
	capped.V(9).Error(errors.New("boom"), "an error is always logged")

	logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
	for _, want := range []string{"at seven", "at two plus five", "derived at six", "an error is always logged"} {
		if !strings.Contains(logs, want) {
			t.Errorf("%q was dropped:\n%s", want, logs)
		}
	}
	for _, unwanted := range []string{"at eight", "at ten", "at four plus four", "derived at nine", "deeper at eight"} {
		if strings.Contains(logs, unwanted) {
			t.Errorf("%q was logged:\n%s", unwanted, logs)
		}
	}
	// The capped logger is below a verbosity the underlying one does not reach: the lower of
	// the two wins.
	low := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(3)))
	if klog.New(newBelowSink(low.GetSink(), bodyLogLevel)).V(5).Enabled() {
		t.Error("the cap enabled a level the wrapped logger had off")
	}
	if newBelowSink(nil, bodyLogLevel) != nil {
		t.Error("a discarding logger must stay one")
	}
}

// TestBelowSinkKeepsCallSite checks that the extra frame of the wrapper does not move the file
// and line klog prints (nor what --vmodule matches) into this package's wrapper.
func TestBelowSinkKeepsCallSite(t *testing.T) {
	var buf bytes.Buffer
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(10), textlogger.Output(&buf)))
	capped := klog.New(newBelowSink(logger.GetSink(), bodyLogLevel))
	capped.V(1).Info("where am I")
	if line := buf.String(); !strings.Contains(line, "quiet_test.go:") {
		t.Errorf("log line does not name the caller: %s", line)
	}
}

// TestFetchDoesNotLogTheResponseBody reads a Secret through a real client-go REST client (the
// fake clientset of the other tests bypasses rest.Request, where bodies are logged) from a
// server that answers with the Secret, with the logger at V(10). A plain Get logs the body, data
// and all: that is the leak. Fetch must not.
func TestFetchDoesNotLogTheResponseBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/namespaces/vault/secrets/expand" {
			http.NotFound(w, r)
			return
		}
		s := testSecret("vault", "expand")
		s.TypeMeta = metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s)
	}))
	defer srv.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	newCtx := func() (context.Context, func() string) {
		logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(10), ktesting.BufferLogs(true)))
		return klog.NewContext(context.Background(), logger), func() string {
			return logger.GetSink().(ktesting.Underlier).GetBuffer().String()
		}
	}

	// Without the cap: client-go prints the body. Were it not so, the check below would prove
	// nothing.
	ctx, logs := newCtx()
	s, err := client.CoreV1().Secrets("vault").Get(ctx, "expand", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Data["password"]) != secretValue {
		t.Fatalf("the server's Secret did not arrive: %v", s.Data)
	}
	if !leaks(logs()) {
		t.Fatalf("a Get at V(10) no longer logs the response body; this test needs another way to see the leak:\n%s", logs())
	}

	ctx, logs = newCtx()
	data, err := Fetch(ctx, kubetest.Wrap(client), Ref{Namespace: "vault", Name: "expand"})
	if err != nil {
		t.Fatal(err)
	}
	if data["password"] != secretValue {
		t.Fatalf("Fetch returned %v", data)
	}
	out := logs()
	if leaks(out) || strings.Contains(out, "Response Body") {
		t.Errorf("Fetch logged the Secret's body:\n%s", out)
	}
	if !strings.Contains(out, "Read secret for volume expansion") {
		t.Errorf("Fetch's own line at V(4) is missing; the cap must apply to the API call only:\n%s", out)
	}
}

// leaks reports whether out holds secretValue, as text or as JSON carries Secret data (base64).
func leaks(out string) bool {
	return strings.Contains(out, secretValue) ||
		strings.Contains(out, base64.StdEncoding.EncodeToString([]byte(secretValue)))
}

// TestFetchWithoutContextualLogging: with the ContextualLogging gate off, klog ignores the
// context's logger and client-go logs with the global one. Fetch refuses to read at --v=8 and
// above (the body would be logged), and reads as usual below.
func TestFetchWithoutContextualLogging(t *testing.T) {
	klog.EnableContextualLogging(false)
	defer klog.EnableContextualLogging(true)
	if _, ok := quietContext(context.Background()); ok {
		t.Fatal("quietContext claims a cap with contextual logging off")
	}
	var fs flag.FlagSet
	klog.InitFlags(&fs)
	old := fs.Lookup("v").Value.String()
	defer func() { _ = fs.Set("v", old) }()
	ref := Ref{Namespace: "vault", Name: "expand"}

	for _, tc := range []struct {
		v       string
		wantErr bool
	}{{"7", false}, {"8", true}, {"10", true}} {
		if err := fs.Set("v", tc.v); err != nil {
			t.Fatal(err)
		}
		client := fake.NewClientset(testSecret("vault", "expand"))
		data, err := Fetch(context.Background(), kubetest.Wrap(client), ref)
		if tc.wantErr {
			checkErr(t, err, []string{`secret "vault/expand" for volume expansion not read`, "ContextualLogging"})
			if len(client.Actions()) != 0 {
				t.Errorf("--v=%s: the Secret was read anyway: %v", tc.v, client.Actions())
			}
			continue
		}
		if err != nil || data["password"] != secretValue {
			t.Errorf("--v=%s: Fetch = %v, %v", tc.v, data, err)
		}
	}
}
