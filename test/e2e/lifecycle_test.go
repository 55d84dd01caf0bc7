//go:build e2e

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

package e2e

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

func TestSecretsArriveAtTheDriver(t *testing.T) {
	// --v=5 logs the gRPC payloads, which must come out with secrets stripped.
	e := newEnv(t, framework.DriverOptions{}, "--v=5")
	secret := func(name, value string) {
		_, err := cluster.Admin.CoreV1().Secrets(e.ns).Create(e.ctx, &v1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: map[string]string{"token": value},
		}, metav1.CreateOptions{})
		must(t, err)
	}
	secret("from-ref", "pv-ref-value")
	secret("templated-expand", "storageclass-value")
	templated := e.class + "-templated"
	must(t, framework.CreateClass(e.ctx, cluster.Admin, templated, e.driver.Name, map[string]string{
		"csi.storage.k8s.io/controller-expand-secret-name":      "${pvc.name}-expand",
		"csi.storage.k8s.io/controller-expand-secret-namespace": "${pvc.namespace}",
	}))
	byRef := e.volume("data", "1Gi", func(v *framework.Volume) {
		v.SecretRef = &v1.SecretReference{Namespace: e.ns, Name: "from-ref"}
	})
	byClass := e.volume("templated", "1Gi", func(v *framework.Volume) { v.Class = templated })
	e.grow("data", "2Gi")
	e.grow("templated", "2Gi")
	e.waitClaim("data", "the resize with the PV's secret", finished("2Gi"))
	e.waitClaim("templated", "the resize with the class's secret", finished("2Gi"))

	want := map[string]string{byRef.Handle: "pv-ref-value", byClass.Handle: "storageclass-value"}
	for _, c := range e.calls() {
		if c.Secrets["token"] != want[c.VolumeID] {
			t.Errorf("volume %s got secrets %v, want token %q", c.VolumeID, c.Secrets, want[c.VolumeID])
		}
	}
	logs, err := os.ReadFile(e.resizer.Log)
	must(t, err)
	for _, value := range want {
		if strings.Contains(string(logs), value) {
			t.Errorf("secret value %q in the resizer's log", value)
		}
	}
}

func TestKilledDuringSlowExpansionFinishesRecordedSize(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{})
	v := e.volume("data", "1Gi")
	must(t, e.driver.Script(framework.Answer{Delay: "4s"}))
	e.grow("data", "2Gi")
	e.waitClaim("data", "the intent to be recorded", func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimControllerResizeInProgress
	})
	e.resizer.Kill() // SIGKILL while the driver is still expanding
	e.grow("data", "3Gi")

	e.startResizer("resizer-restarted")
	e.waitClaim("data", "the resize to finish", finished("3Gi"))
	var sizes []int64
	for _, c := range e.calls() {
		if c.VolumeID == v.Handle {
			sizes = append(sizes, c.RequiredBytes)
		}
	}
	// The killed call, the recorded size finished after the restart, then
	// the new request.
	want := []int64{bytes("2Gi"), bytes("2Gi"), bytes("3Gi")}
	if len(sizes) != len(want) || sizes[0] != want[0] || sizes[1] != want[1] || sizes[2] != want[2] {
		t.Errorf("driver calls = %v bytes, want %v", sizes, want)
	}
}

func TestInUseClaims(t *testing.T) {
	tests := []struct {
		name         string
		offline      bool
		wantBlocking bool
	}{
		{name: "online driver expands a claim in use", offline: false},
		{name: "offline driver waits for the pod to go", offline: true, wantBlocking: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, framework.DriverOptions{OfflineOnly: tc.offline})
			e.volume("data", "1Gi")
			e.runningPod("app", "data")
			e.grow("data", "2Gi")
			if !tc.wantBlocking {
				e.waitClaim("data", "the online resize", finished("2Gi"))
				return
			}
			e.waitFact("data", heldInUse("[app]"))
			if n := len(e.calls()); n != 0 {
				t.Fatalf("driver called %d times while the pod runs", n)
			}
			must(t, cluster.Admin.CoreV1().Pods(e.ns).Delete(e.ctx, "app", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}))
			e.waitClaim("data", "the resize once the pod is gone", finished("2Gi"))
		})
	}
}

// runningPod creates a pod on a node that uses claim, and marks it Running,
// as kubelet would.
func (e *env) runningPod(name, claim string) {
	e.t.Helper()
	pod, err := cluster.Admin.CoreV1().Pods(e.ns).Create(e.ctx, &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PodSpec{
			NodeName:   "node-1",
			Containers: []v1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
			Volumes: []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{
				PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
			}}},
		},
	}, metav1.CreateOptions{})
	must(e.t, err)
	pod.Status.Phase = v1.PodRunning
	_, err = cluster.Admin.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, pod, metav1.UpdateOptions{})
	must(e.t, err)
}

func TestLeaderElection(t *testing.T) {
	ports, err := framework.FreePorts(2)
	must(t, err)
	e := newEnv(t, framework.DriverOptions{}, "--leader-election", "--leader-election-namespace="+resizerNamespace,
		"--leader-election-lease-duration=4s", "--leader-election-renew-deadline=3s", "--leader-election-retry-period=500ms",
		"--http-endpoint=127.0.0.1:"+strconv.Itoa(ports[0]))
	first := replica{e.resizer, ports[0]}
	e.args[len(e.args)-1] = "--http-endpoint=127.0.0.1:" + strconv.Itoa(ports[1])
	second := replica{e.startResizer("resizer-2"), ports[1]}
	e.resizer = first.Process
	t.Cleanup(func() { _ = second.Stop(30 * time.Second) })

	leader, standby := e.waitLeader(first, second)
	e.volume("one", "1Gi")
	e.grow("one", "2Gi")
	e.waitClaim("one", "the resize by the leader", finished("2Gi"))
	if log := readLog(t, standby.Process); strings.Contains(log, "Decided") {
		t.Errorf("the standby replica worked on claims:\n%s", log)
	}

	start := time.Now()
	leader.Kill()
	e.waitFor("the standby to take over", func() bool { return e.leads(standby) })
	// A figure, not an assertion: timing belongs in benchmarks.
	t.Logf("takeover after SIGKILL of the leader: %s (lease duration 4s)", time.Since(start).Round(10*time.Millisecond))
	e.volume("two", "1Gi")
	e.grow("two", "2Gi")
	e.waitClaim("two", "the resize by the new leader", finished("2Gi"))
	e.resizer = standby.Process
}

func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	err := wait.PollUntilContextTimeout(e.ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		e.t.Fatalf("waiting for %s: %v", what, err)
	}
}

func readLog(t *testing.T, p *framework.Process) string {
	t.Helper()
	b, err := os.ReadFile(p.Log)
	must(t, err)
	return string(b)
}
