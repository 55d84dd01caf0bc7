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

package inuse

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

type podOption func(*v1.Pod)

// pod is a pending, unscheduled pod without volumes in namespace ns,
// changed by opts.
func pod(name string, opts ...podOption) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns", UID: types.UID("uid-" + name), ResourceVersion: "1",
			Labels: map[string]string{"app": "db"},
		},
		Spec: v1.PodSpec{
			Containers: []v1.Container{{Name: "main", Image: "registry.example.com/db:1"}},
		},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func inNamespace(ns string) podOption { return func(p *v1.Pod) { p.Namespace = ns } }

func onNode(node string) podOption { return func(p *v1.Pod) { p.Spec.NodeName = node } }

func inPhase(phase v1.PodPhase) podOption { return func(p *v1.Pod) { p.Status.Phase = phase } }

func running() podOption {
	return func(p *v1.Pod) { p.Spec.NodeName = "node-1"; p.Status.Phase = v1.PodRunning }
}

func atVersion(rv string) podOption { return func(p *v1.Pod) { p.ResourceVersion = rv } }

func withClaim(volume, claim string) podOption {
	return func(p *v1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: volume, VolumeSource: v1.VolumeSource{
			PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
		}})
	}
}

func withEphemeral(volume string) podOption {
	return func(p *v1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: volume, VolumeSource: v1.VolumeSource{
			Ephemeral: &v1.EphemeralVolumeSource{VolumeClaimTemplate: &v1.PersistentVolumeClaimTemplate{
				Spec: v1.PersistentVolumeClaimSpec{
					Resources: v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
		}})
	}
}

func withConfigMap(volume string) podOption {
	return func(p *v1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: volume, VolumeSource: v1.VolumeSource{
			ConfigMap: &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: "cfg"}},
		}})
	}
}

// slimPod is the projection expected of pod(name) with the given fields.
func slimPod(name string, phase v1.PodPhase, scheduled bool, claims ...string) *Pod {
	return &Pod{
		Meta:      slim.Meta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), ResourceVersion: "1"},
		Phase:     phase,
		Scheduled: scheduled,
		Claims:    claims,
	}
}

func TestTransform(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	already := slimPod("web-0", v1.PodRunning, true, "data")
	tombstone := cache.DeletedFinalStateUnknown{Key: "ns/web-0", Obj: already}
	tests := []struct {
		name string
		in   any
		want any
		same bool // the very object passed in comes back
	}{
		{
			name: "plain claim",
			in:   pod("web-0", running(), withClaim("data", "data-web-0")),
			want: slimPod("web-0", v1.PodRunning, true, "data-web-0"),
		},
		{
			name: "generic ephemeral volume",
			in:   pod("job-1", onNode("node-2"), withEphemeral("scratch")),
			want: slimPod("job-1", v1.PodPending, true, "job-1-scratch"),
		},
		{
			name: "both, in volume order, other volumes ignored, a claim mounted twice kept once",
			in: pod("web-1", inPhase(v1.PodSucceeded), withEphemeral("scratch"), withConfigMap("cfg"),
				withClaim("data", "shared"), withClaim("data-ro", "shared")),
			want: slimPod("web-1", v1.PodSucceeded, false, "web-1-scratch", "shared"),
		},
		{
			name: "no volumes: no claims slice",
			in:   pod("idle"),
			want: slimPod("idle", v1.PodPending, false),
		},
		{
			name: "only other volumes: no claims slice",
			in:   pod("cfg-only", withConfigMap("cfg")),
			want: slimPod("cfg-only", v1.PodPending, false),
		},
		{name: "not a pod", in: node, want: node, same: true},
		{name: "already slim", in: already, want: already, same: true},
		{name: "tombstone", in: tombstone, want: tombstone},
		{name: "nil pod", in: (*v1.Pod)(nil), want: (*v1.Pod)(nil)},
		{name: "nil", in: nil, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before any
			if p, ok := tc.in.(*v1.Pod); ok && p != nil {
				before = p.DeepCopy()
			}
			got, err := Transform(tc.in)
			if err != nil {
				t.Fatalf("Transform: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Transform (-got +want):\n%s", diff.Diff(got, tc.want))
			}
			if tc.same && got != tc.in {
				t.Errorf("Transform returned a new object, want the one passed in")
			}
			if before != nil && !reflect.DeepEqual(tc.in, before) {
				t.Errorf("Transform changed its input")
			}
		})
	}
}

// TestPodIsAStoreObject checks what informers and stores need of a *Pod.
func TestPodIsAStoreObject(t *testing.T) {
	p := slimPod("web-0", v1.PodRunning, true, "data")
	p.Namespace = "team-a"

	if key, err := cache.MetaNamespaceKeyFunc(p); err != nil || key != "team-a/web-0" {
		t.Errorf("MetaNamespaceKeyFunc = %q, %v; want team-a/web-0", key, err)
	}
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(cache.DeletedFinalStateUnknown{Key: "team-a/web-0", Obj: p}); err != nil || key != "team-a/web-0" {
		t.Errorf("DeletionHandlingMetaNamespaceKeyFunc = %q, %v; want team-a/web-0", key, err)
	}
	accessor, err := meta.Accessor(p)
	if err != nil {
		t.Fatalf("meta.Accessor: %v", err)
	}
	if accessor.GetResourceVersion() != "1" || accessor.GetUID() != "uid-web-0" {
		t.Errorf("accessor sees resourceVersion %q, UID %q", accessor.GetResourceVersion(), accessor.GetUID())
	}
	if !p.GetObjectKind().GroupVersionKind().Empty() {
		t.Errorf("GetObjectKind() = %v, want empty", p.GetObjectKind().GroupVersionKind())
	}

	c, ok := p.DeepCopyObject().(*Pod)
	if !ok || !reflect.DeepEqual(c, p) {
		t.Fatalf("DeepCopyObject() = %#v, want a *Pod equal to %#v", c, p)
	}
	c.Claims[0] = "changed"
	c.Name = "changed"
	if p.Claims[0] != "data" || p.Name != "web-0" {
		t.Errorf("the copy shares memory with the original: %#v", p)
	}
	if got := (&Pod{}).DeepCopy(); got.Claims != nil {
		t.Errorf("copy of a pod without claims has claims %#v", got.Claims)
	}
	if got := (*Pod)(nil).DeepCopy(); got != nil {
		t.Errorf("copy of nil = %#v, want nil", got)
	}
}

// typicalPod is a pod as a controller-managed workload looks when an
// informer has it: two containers with env, probes and resources, a claim,
// a config map and a projected token, and a status. It has no managedFields,
// so the comparison flatters whole pods.
func typicalPod(i int) *v1.Pod {
	name := fmt.Sprintf("web-%d", i)
	env := make([]v1.EnvVar, 0, 8)
	for j := range 8 {
		env = append(env, v1.EnvVar{Name: fmt.Sprintf("SETTING_%d", j), Value: fmt.Sprintf("value-%d-%d", i, j)})
	}
	mounts := []v1.VolumeMount{
		{Name: "data", MountPath: "/var/lib/data"},
		{Name: "config", MountPath: "/etc/app", ReadOnly: true},
		{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
	}
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}, PeriodSeconds: 10}
	container := func(cname, image string) v1.Container {
		return v1.Container{
			Name: cname, Image: image, Args: []string{"--config=/etc/app/config.yaml", "--verbose"},
			Ports: []v1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: v1.ProtocolTCP}},
			Env:   env, VolumeMounts: mounts, LivenessProbe: probe, ReadinessProbe: probe,
			Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   v1.ResourceList{v1.ResourceMemory: resource.MustParse("256Mi")},
			},
			TerminationMessagePath: "/dev/termination-log", ImagePullPolicy: v1.PullIfNotPresent,
		}
	}
	start := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	expiry := int64(3607)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "prod", UID: types.UID(fmt.Sprintf("3c7d1d57-7f6a-4c1e-9a50-0000%08d", i)),
			ResourceVersion: fmt.Sprintf("%d", 1000+i), GenerateName: "web-", CreationTimestamp: start,
			Labels: map[string]string{
				"app.kubernetes.io/name": "web", "app.kubernetes.io/instance": "prod",
				"controller-revision-hash": "web-7d9f8c6b5", "statefulset.kubernetes.io/pod-name": name,
			},
			Annotations: map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "9d1c6a0e-0000-4000-8000-000000000001",
			}},
		},
		Spec: v1.PodSpec{
			Containers: []v1.Container{container("web", "registry.example.com/web:1.2.3"), container("proxy", "registry.example.com/proxy:4.5.6")},
			Volumes: []v1.Volume{
				{Name: "data", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data-" + name}}},
				{Name: "config", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: "web-config"}}}},
				{Name: "kube-api-access", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{
					{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &expiry}},
					{ConfigMap: &v1.ConfigMapProjection{LocalObjectReference: v1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []v1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
				}}}},
			},
			NodeName: "node-17", ServiceAccountName: "web", RestartPolicy: v1.RestartPolicyAlways, DNSPolicy: v1.DNSClusterFirst,
			Tolerations: []v1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}},
		},
		Status: v1.PodStatus{
			Phase: v1.PodRunning, PodIP: "10.0.3.17", HostIP: "192.168.0.17", StartTime: &start,
			Conditions: []v1.PodCondition{
				{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: start},
				{Type: v1.PodInitialized, Status: v1.ConditionTrue, LastTransitionTime: start},
				{Type: v1.ContainersReady, Status: v1.ConditionTrue, LastTransitionTime: start},
				{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: start},
			},
			ContainerStatuses: []v1.ContainerStatus{
				{Name: "web", Ready: true, Image: "registry.example.com/web:1.2.3", ImageID: "registry.example.com/web@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ContainerID: "containerd://0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: start}}},
				{Name: "proxy", Ready: true, Image: "registry.example.com/proxy:4.5.6", ImageID: "registry.example.com/proxy@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ContainerID: "containerd://fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: start}}},
			},
		},
	}
}

// storedBytesPerPod returns how much heap storing n typical pods takes in
// an indexer like the Tracker's, slim or whole. The pods are built inside
// the measured window, as a watch decodes them, so a whole pod counts in
// full and a slim one only for what the projection keeps.
func storedBytesPerPod(n int, slimPods bool) float64 {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{claimIndex: indexClaims})
	before := heapInUse()
	for i := range n {
		var obj any = typicalPod(i)
		if slimPods {
			obj, _ = Transform(obj)
		}
		if err := indexer.Add(obj); err != nil {
			panic(err)
		}
	}
	after := heapInUse()
	runtime.KeepAlive(indexer)
	return float64(after-before) / float64(n)
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestSlimPodMemory checks the target of 10,000 pods in under 10 MiB and
// logs the figures (go test -v). Heap figures, not timing.
func TestSlimPodMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap; skipped with -short")
	}
	const n = 10000
	slimBytes := storedBytesPerPod(n, true)
	wholeBytes := storedBytesPerPod(n, false)
	t.Logf("%d pods: slim %.0f B/pod (%.2f MiB), whole %.0f B/pod (%.2f MiB)",
		n, slimBytes, slimBytes*n/(1<<20), wholeBytes, wholeBytes*n/(1<<20))
	if total := slimBytes * n; total >= 10<<20 {
		t.Errorf("%d slim pods take %.2f MiB, want < 10 MiB", n, total/(1<<20))
	}
}

func BenchmarkTransform(b *testing.B) {
	p := typicalPod(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Transform(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoredPod reports the heap a stored pod takes, slim and whole;
// the time per operation means nothing here.
func BenchmarkStoredPod(b *testing.B) {
	const n = 10000
	for _, slimPods := range []bool{true, false} {
		name := "whole"
		if slimPods {
			name = "slim"
		}
		b.Run(name, func(b *testing.B) {
			var sum float64
			runs := 0
			for b.Loop() {
				sum += storedBytesPerPod(n, slimPods)
				runs++
			}
			perPod := sum / float64(runs)
			b.ReportMetric(perPod, "B/pod")
			b.ReportMetric(perPod*n/(1<<20), "MiB/10k-pods")
		})
	}
}
