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
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

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
