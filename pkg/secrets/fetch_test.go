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
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/klog/v2/textlogger"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
)

// secretValue is a value distinctive enough that finding it anywhere but in Fetch's result
// proves a leak.
const secretValue = "s3cr3t-Value-7f3a9c-must-never-be-logged"

func testSecret(ns, name string) *v1.Secret {
	return &v1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data: map[string][]byte{
			"password": []byte(secretValue),
			"user":     []byte("admin"),
			"empty":    {},
		},
	}
}

func TestFetch(t *testing.T) {
	tests := []struct {
		name         string
		ref          Ref
		objects      []runtime.Object
		reactErr     error // returned by the API for every "get secrets"
		want         map[string]string
		wantErr      []string
		wantNotFound bool
		wantGets     int
	}{
		{
			name:     "found",
			ref:      Ref{Namespace: "vault", Name: "expand"},
			objects:  []runtime.Object{testSecret("vault", "expand")},
			want:     map[string]string{"password": secretValue, "user": "admin", "empty": ""},
			wantGets: 1,
		},
		{
			name:     "found without data",
			ref:      Ref{Namespace: "vault", Name: "expand"},
			objects:  []runtime.Object{&v1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "vault", Name: "expand"}}},
			want:     map[string]string{},
			wantGets: 1,
		},
		{
			name:         "not found",
			ref:          Ref{Namespace: "vault", Name: "expand"},
			objects:      []runtime.Object{testSecret("other", "expand")},
			wantErr:      []string{`secret "vault/expand" for volume expansion not found`},
			wantNotFound: true,
			wantGets:     1,
		},
		{
			name:     "forbidden",
			ref:      Ref{Namespace: "vault", Name: "expand"},
			objects:  []runtime.Object{testSecret("vault", "expand")},
			reactErr: apierrors.NewForbidden(v1.Resource("secrets"), "expand", errors.New("RBAC says no")),
			wantErr:  []string{`get secret "vault/expand" for volume expansion`, "RBAC says no"},
			wantGets: 1,
		},
		{
			name:     "timeout",
			ref:      Ref{Namespace: "vault", Name: "expand"},
			reactErr: apierrors.NewTimeoutError("slow", 1),
			wantErr:  []string{`get secret "vault/expand" for volume expansion`},
			wantGets: 1,
		},
		{
			name:    "empty name is not sent to the API",
			ref:     Ref{Namespace: "vault"},
			wantErr: []string{`secret "vault/" for volume expansion: both namespace and name are required`},
		},
		{
			name:    "empty namespace is not sent to the API",
			ref:     Ref{Name: "expand"},
			wantErr: []string{`secret "/expand"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(10), ktesting.BufferLogs(true)))
			ctx := klog.NewContext(context.Background(), logger)
			client := fake.NewClientset(tc.objects...)
			if tc.reactErr != nil {
				client.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, tc.reactErr
				})
			}

			got, err := Fetch(ctx, kubetest.Wrap(client), tc.ref)

			checkErr(t, err, tc.wantErr)
			if err != nil {
				if got != nil {
					t.Errorf("got data with error %v", err)
				}
				if apierrors.IsNotFound(err) != tc.wantNotFound {
					t.Errorf("IsNotFound(%v) = %v, want %v", err, !tc.wantNotFound, tc.wantNotFound)
				}
				if tc.reactErr != nil && !errors.Is(err, tc.reactErr) {
					t.Errorf("error %v does not wrap %v", err, tc.reactErr)
				}
			} else if !maps.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			gets := 0
			for _, a := range client.Actions() {
				if a.Matches("get", "secrets") {
					gets++
				}
			}
			if gets != tc.wantGets {
				t.Errorf("got %d secret reads, want %d", gets, tc.wantGets)
			}
			logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
			if strings.Contains(logs, secretValue) {
				t.Errorf("secret value leaked into the log:\n%s", logs)
			}
		})
	}
}

// TestFetchNeverLeaks reads a Secret whose value is distinctive, then checks every output a
// resize can produce about it: logs at the highest verbosity, errors of the other paths, and
// String() of the Ref.
func TestFetchNeverLeaks(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(10), ktesting.BufferLogs(true)))
	ctx := klog.NewContext(context.Background(), logger)
	ref := Ref{Namespace: "vault", Name: "expand"}
	client := fake.NewClientset(testSecret("vault", "expand"))

	data, err := Fetch(ctx, kubetest.Wrap(client), ref)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if data["password"] != secretValue {
		t.Fatalf("Fetch did not return the secret value")
	}

	// An error on a later read, such as a canceled context, must not carry data either.
	client.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, context.Canceled
	})
	_, fetchErr := Fetch(ctx, kubetest.Wrap(client), ref)
	if fetchErr == nil {
		t.Fatal("Fetch with an injected error succeeded")
	}

	outputs := map[string]string{
		"log":          logger.GetSink().(ktesting.Underlier).GetBuffer().String(),
		"error":        fetchErr.Error(),
		"Ref.String()": ref.String(),
		"Ref %v":       fmt.Sprintf("%v %+v %#v", ref, ref, ref),
	}
	if !strings.Contains(outputs["log"], "Read secret for volume expansion") {
		t.Errorf("the log does not show the read; the leak check would prove nothing:\n%s", outputs["log"])
	}
	for what, out := range outputs {
		if strings.Contains(out, secretValue) {
			t.Errorf("secret value leaked into %s: %s", what, out)
		}
	}
}

func TestFetchSaysWhatTheSecretIsFor(t *testing.T) {
	_, err := Fetch(context.Background(), kubetest.Wrap(fake.NewClientset()), Ref{Namespace: "keys", Name: "gone", Use: "volume modification"})
	if err == nil || !strings.Contains(err.Error(), `secret "keys/gone" for volume modification not found`) {
		t.Errorf("Fetch error = %v, want it to name the modification", err)
	}
}

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
	if line := buf.String(); !strings.Contains(line, "fetch_test.go:") {
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
