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
	"context"
	"path/filepath"

	"github.com/csi-resizer/csi-resizer/pkg/plugin"
)

// The labels of the lines --keep prints, which a script (or the test) may
// read: each is followed by one space and the value.
const (
	kubeconfigLabel = "Kubeconfig of the administrator:"
	metricsLabel    = "Metrics of csi-resizer:"
)

// keep prints how to look around the running demo, then waits for Ctrl-C.
// The kubeconfig carries the administrator's token, the one the API server
// was started with.
func (d *demo) keep(ctx context.Context) error {
	kubeconfig, err := d.cluster.WriteKubeconfig("admin", d.cluster.AdminIdentity())
	if err != nil {
		return err
	}
	plugin := filepath.Join(filepath.Dir(d.tools.Resizer), plugin.ProgramName)
	say("Everything keeps running.")
	say("%s %s", kubeconfigLabel, kubeconfig)
	say("%s %s", metricsLabel, d.metrics)
	say("Try: kubectl --kubeconfig=%s -n %s get pvc %s -o yaml", kubeconfig, namespace, claim)
	say("     %s explain -n %s %s --kubeconfig=%s", plugin, namespace, claim, kubeconfig)
	say("     curl -s %s | grep ^csi_resizer", d.metrics)
	say("Press Ctrl-C to tear it down.")
	<-ctx.Done()
	return nil
}
