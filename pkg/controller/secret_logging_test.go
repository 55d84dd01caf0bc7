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
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	csispec "github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-resizer/csi-resizer/pkg/driver"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// TestSecretsNeverLogged runs a resize with an expansion Secret through the
// real CSI client and the test driver, its logger at V(10): one
// attempt the driver fails (with its own message), one that succeeds. The
// Secret's values must reach the driver and appear nowhere else: not in
// logs, events, errors, nor in what is written to the claim and the PV.
func TestSecretsNeverLogged(t *testing.T) {
	const (
		password = "pw-7Hq2xK-never-log-me"
		token    = "tok-Zx9Lm4-never-log-me"
	)
	// Everything on the resize path logs through the context's logger, the
	// gRPC payloads of csi-lib-utils included (checked below). klog's global
	// logger is left alone: replacing it races with informers of other tests.
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(10), ktesting.BufferLogs(true)))
	ctx := klog.NewContext(context.Background(), logger)

	d := csidriver.StartForTest(t, csidriver.Config{DriverName: driverName, ControllerExpand: true})
	connectCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	client, err := driver.Connect(connectCtx, d.Endpoint(), 5*time.Second, nil, driver.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	failures := 1
	d.SetExpandHook(func(context.Context, *csispec.ControllerExpandVolumeRequest) (*csispec.ControllerExpandVolumeResponse, bool, error) {
		if failures == 0 {
			return nil, false, nil
		}
		failures--
		return nil, true, status.Error(codes.Internal, "backend rejected the request")
	})

	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi", expandSecret("vault", "creds")),
		secret("vault", "creds", map[string]string{"password": password, "token": token})),
		func(c *Config) { c.Resizer = &driver.VolumeExpander{Driver: client} })
	e.ctx = ctx

	outputs := map[string]string{}
	if _, err := e.sync("a"); err == nil {
		t.Fatal("first sync: want the driver's failure")
	} else {
		outputs["error of the failed sync"] = err.Error()
	}
	if _, err := e.sync("a"); err != nil {
		t.Fatalf("second sync: %v", err)
	}
	equal(t, "claim", summary(e.claim("a")), finished)

	calls := d.Calls()
	if len(calls) != 2 || calls[1].Secrets["password"] != password || calls[1].Secrets["token"] != token {
		t.Fatalf("the driver did not get the secret: the check below would prove nothing (calls %d)", len(calls))
	}
	logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
	for _, want := range []string{"GRPC call", "Read secret for volume expansion", "backend rejected the request"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q: the check below would prove little", want)
		}
	}
	outputs["logs"] = logs
	outputs["events"] = strings.Join(e.events(), "\n")
	for _, a := range e.client.Actions() {
		if a.GetVerb() == "patch" {
			outputs["patches"] += string(a.(interface{ GetPatch() []byte }).GetPatch())
		}
	}
	for what, obj := range map[string]any{"claim": e.claim("a"), "PV": e.volume("pv-a")} {
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		outputs[what] = string(b)
	}
	for what, out := range outputs {
		for _, value := range []string{password, token} {
			if strings.Contains(out, value) {
				t.Errorf("secret value %q leaked into %s", value, what)
			}
		}
	}
}
