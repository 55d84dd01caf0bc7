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
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
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

// deadline bounds every wait for the informer; nothing sleeps a fixed time.
const deadline = 15 * time.Second

// fixture is a Tracker over a running pod informer on a fake clientset,
// with the claims it released, in order.
type fixture struct {
	client   *fake.Clientset
	informer cache.SharedIndexInformer
	tracker  *Tracker
	released chan string
}

// start runs a tracked informer over client until the test ends. setup, when
// not nil, runs on the fixture before the informer starts.
func start(t *testing.T, client *fake.Clientset, setup func(*fixture)) *fixture {
	t.Helper()
	f := &fixture{
		client:   client,
		informer: coreinformers.NewPodInformer(client, "", 0, cache.Indexers{}),
		released: make(chan string, 100),
	}
	var err error
	if f.tracker, err = NewTracker(f.informer); err != nil {
		t.Fatalf("NewTracker: %v", err)
	}
	if err := f.tracker.OnRelease(func(namespace, claim string) { f.released <- namespace + "/" + claim }); err != nil {
		t.Fatalf("OnRelease: %v", err)
	}
	if setup != nil {
		setup(f)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.informer.RunWithContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	syncCtx, cancelSync := context.WithTimeout(ctx, deadline)
	defer cancelSync()
	if !cache.WaitFor(syncCtx, "", f.informer.HasSyncedChecker()) {
		t.Fatal("pod informer did not sync")
	}
	return f
}

// eventually waits until cond holds, failing the test at the deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, deadline, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func (f *fixture) waitUsedBy(t *testing.T, claim string, want ...string) {
	t.Helper()
	var got []string
	eventually(t, "UsedBy(ns, "+claim+")", func() bool {
		got = f.tracker.UsedBy("ns", claim)
		return slices.Equal(got, want)
	})
}

// waitReleased receives releases up to and including a sentinel claim,
// released by a pod it creates and deletes, and checks they are exactly
// want: the sentinel proves no further release was on its way.
func (f *fixture) waitReleased(t *testing.T, want ...string) {
	t.Helper()
	ctx := context.Background()
	sentinel := pod("sentinel", withClaim("s", "sentinel"))
	if _, err := f.client.CoreV1().Pods("ns").Create(ctx, sentinel, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create sentinel: %v", err)
	}
	if err := f.client.CoreV1().Pods("ns").Delete(ctx, "sentinel", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete sentinel: %v", err)
	}
	timeout := time.NewTimer(deadline)
	defer timeout.Stop()
	var got []string
	for {
		select {
		case claim := <-f.released:
			if claim == "ns/sentinel" {
				if !slices.Equal(got, want) {
					t.Errorf("released %v, want %v", got, want)
				}
				return
			}
			got = append(got, claim)
		case <-timeout.C:
			t.Fatalf("released %v and no sentinel before the deadline, want %v", got, want)
		}
	}
}

func (f *fixture) create(t *testing.T, p *v1.Pod) {
	t.Helper()
	if _, err := f.client.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s: %v", p.Name, err)
	}
}

// update writes p, which carries a new resourceVersion as the API server
// would give it: the fake clientset keeps whatever it is given.
func (f *fixture) update(t *testing.T, p *v1.Pod) {
	t.Helper()
	if _, err := f.client.CoreV1().Pods(p.Namespace).Update(context.Background(), p, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update pod %s: %v", p.Name, err)
	}
}

func (f *fixture) delete(t *testing.T, name string) {
	t.Helper()
	if err := f.client.CoreV1().Pods("ns").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod %s: %v", name, err)
	}
}

// TestUsedBy checks which pods hold a claim, as a Tracker answers from its
// informer and as UsersOf answers from a list.
func TestUsedBy(t *testing.T) {
	tests := []struct {
		name  string
		pods  []*v1.Pod
		claim string
		want  []string
	}{
		{name: "no pods", claim: "data"},
		{name: "running pod", pods: []*v1.Pod{pod("web-0", running(), withClaim("v", "data"))}, claim: "data", want: []string{"web-0"}},
		{name: "pending, scheduled", pods: []*v1.Pod{pod("web-0", onNode("node-1"), withClaim("v", "data"))}, claim: "data", want: []string{"web-0"}},
		{name: "pending, not scheduled", pods: []*v1.Pod{pod("web-0", withClaim("v", "data"))}, claim: "data"},
		{name: "succeeded, not deleted: counts (kubelet may not have unmounted)", pods: []*v1.Pod{pod("job-0", onNode("node-1"), inPhase(v1.PodSucceeded), withClaim("v", "data"))}, claim: "data", want: []string{"job-0"}},
		{name: "failed, not deleted: counts", pods: []*v1.Pod{pod("job-0", onNode("node-1"), inPhase(v1.PodFailed), withClaim("v", "data"))}, claim: "data", want: []string{"job-0"}},
		{name: "failed, never scheduled: never mounted", pods: []*v1.Pod{pod("job-0", inPhase(v1.PodFailed), withClaim("v", "data"))}, claim: "data"},
		{name: "unknown phase on a node counts", pods: []*v1.Pod{pod("web-0", onNode("node-1"), inPhase(v1.PodUnknown), withClaim("v", "data"))}, claim: "data", want: []string{"web-0"}},
		{name: "generic ephemeral volume", pods: []*v1.Pod{pod("job-1", running(), withEphemeral("scratch"))}, claim: "job-1-scratch", want: []string{"job-1"}},
		{name: "other claim", pods: []*v1.Pod{pod("web-0", running(), withClaim("v", "logs"))}, claim: "data"},
		{name: "same claim name in another namespace", pods: []*v1.Pod{pod("web-0", inNamespace("other"), running(), withClaim("v", "data"))}, claim: "data"},
		{
			name: "shared claim: every user that counts, sorted",
			pods: []*v1.Pod{
				pod("web-5", running(), withClaim("v", "data")),
				pod("web-2", running(), withClaim("v", "data")),
				pod("web-0", running(), withClaim("v", "data")),
				pod("web-1", onNode("node-1"), inPhase(v1.PodSucceeded), withClaim("v", "data")),
				pod("web-6", running(), withClaim("v", "data")),
				pod("web-3", onNode("node-3"), withClaim("v", "data"), withClaim("w", "logs")),
				pod("web-4", running(), withClaim("v", "data")),
			},
			claim: "data",
			want:  []string{"web-0", "web-1", "web-2", "web-3", "web-4", "web-5", "web-6"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := make([]kruntime.Object, len(tc.pods))
			for i, p := range tc.pods {
				objs[i] = p
			}
			f := start(t, fake.NewClientset(objs...), nil)
			if got := f.tracker.UsedBy("ns", tc.claim); !slices.Equal(got, tc.want) {
				t.Errorf("UsedBy(ns, %s) = %v, want %v", tc.claim, got, tc.want)
			}
			list := make([]v1.Pod, len(tc.pods))
			for i, p := range tc.pods {
				list[i] = *p
			}
			if got := UsersOf(list, "ns", tc.claim); !slices.Equal(got, tc.want) {
				t.Errorf("UsersOf(pods, ns, %s) = %v, want %v", tc.claim, got, tc.want)
			}
		})
	}
}

// TestStoredObject checks that the informer keeps the projection and
// nothing else of the pod.
func TestStoredObject(t *testing.T) {
	f := start(t, fake.NewClientset(pod("web-0", running(), atVersion("7"), withClaim("v", "data"), withEphemeral("scratch"))), nil)
	obj, exists, err := f.informer.GetStore().GetByKey("ns/web-0")
	if err != nil || !exists {
		t.Fatalf("ns/web-0 not in the store: %v", err)
	}
	want := slimPod("web-0", v1.PodRunning, true, "data", "web-0-scratch")
	want.ResourceVersion = "7"
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("stored %#v, want %#v", obj, want)
	}
}

// TestLifecycle follows pods through the phases that matter, written
// through the fake API server and seen through the informer.
func TestLifecycle(t *testing.T) {
	f := start(t, fake.NewClientset(), nil)

	// Created, not yet scheduled: in the store, not a user.
	f.create(t, pod("web-0", withClaim("v", "data")))
	eventually(t, "web-0 in the store", func() bool {
		_, exists, _ := f.informer.GetStore().GetByKey("ns/web-0")
		return exists
	})
	f.waitUsedBy(t, "data")

	// Scheduled, then running: a user; nothing released.
	f.update(t, pod("web-0", onNode("node-1"), atVersion("2"), withClaim("v", "data")))
	f.waitUsedBy(t, "data", "web-0")
	f.update(t, pod("web-0", running(), atVersion("3"), withClaim("v", "data")))
	f.waitReleased(t)
	f.waitUsedBy(t, "data", "web-0")

	// Finished: still a user, as kubelet reports the phase before it
	// unmounts; nothing released.
	f.update(t, pod("web-0", running(), inPhase(v1.PodSucceeded), atVersion("4"), withClaim("v", "data")))
	f.waitUsedBy(t, "data", "web-0")
	f.waitReleased(t)

	// Deleting the finished pod (kubelet does, once it has unmounted)
	// releases its claims.
	f.delete(t, "web-0")
	f.waitReleased(t, "ns/data")
	f.waitUsedBy(t, "data")

	// Deleted while running: every claim released, ephemeral one included.
	f.create(t, pod("job-1", running(), withClaim("v", "data"), withEphemeral("scratch")))
	f.waitUsedBy(t, "data", "job-1")
	f.waitUsedBy(t, "job-1-scratch", "job-1")
	f.delete(t, "job-1")
	f.waitReleased(t, "ns/data", "ns/job-1-scratch")
	f.waitUsedBy(t, "data")
	f.waitUsedBy(t, "job-1-scratch")

	// Failed straight from pending on a node: a user until deleted.
	f.create(t, pod("job-2", onNode("node-1"), withClaim("v", "logs")))
	f.waitUsedBy(t, "logs", "job-2")
	f.update(t, pod("job-2", onNode("node-1"), inPhase(v1.PodFailed), atVersion("2"), withClaim("v", "logs")))
	f.waitUsedBy(t, "logs", "job-2")
	f.delete(t, "job-2")
	f.waitReleased(t, "ns/logs")
	f.waitUsedBy(t, "logs")
}

// TestTombstone makes the informer lose a deletion: the watch expires, and
// the re-list no longer has the pod, so client-go hands the handler a
// DeletedFinalStateUnknown.
func TestTombstone(t *testing.T) {
	client := fake.NewClientset(pod("web-0", running(), withClaim("v", "data")))
	watchers := make(chan *watch.FakeWatcher, 10)
	client.PrependWatchReactor("pods", func(clienttesting.Action) (bool, watch.Interface, error) {
		w := watch.NewFake()
		watchers <- w
		return true, w, nil
	})
	deleted := make(chan any, 10)
	f := start(t, client, func(f *fixture) {
		if _, err := f.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			DeleteFunc: func(obj any) { deleted <- obj },
		}); err != nil {
			t.Fatalf("AddEventHandler: %v", err)
		}
	})
	f.waitUsedBy(t, "data", "web-0")

	// Deleted behind the informer's back: no watch event.
	if err := client.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), "ns", "web-0"); err != nil {
		t.Fatalf("delete from tracker: %v", err)
	}
	var w *watch.FakeWatcher
	select {
	case w = <-watchers:
	case <-time.After(deadline):
		t.Fatal("the informer never watched")
	}
	gone := apierrors.NewResourceExpired("too old resource version")
	w.Error(&gone.ErrStatus)

	select {
	case claim := <-f.released:
		if claim != "ns/data" {
			t.Errorf("released %s, want ns/data", claim)
		}
	case <-time.After(deadline):
		t.Fatal("the re-list released nothing")
	}
	if obj := <-deleted; !isTombstone(obj) {
		t.Errorf("handlers got %T, want a cache.DeletedFinalStateUnknown: the test did not test tombstones", obj)
	}
	f.waitUsedBy(t, "data")
}

func TestReleaseHandler(t *testing.T) {
	slimRunning := slimPod("web-0", v1.PodRunning, true, "data", "logs")
	tests := []struct {
		name string
		call func(h cache.ResourceEventHandlerFuncs)
		want []string
	}{
		{
			name: "tombstone of a slim pod",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/web-0", Obj: slimRunning})
			},
			want: []string{"ns/data", "ns/logs"},
		},
		{
			name: "tombstone of a whole pod",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/web-0", Obj: pod("web-0", running(), withClaim("v", "data"))})
			},
			want: []string{"ns/data"},
		},
		{
			name: "tombstone of something else",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/x", Obj: &v1.Node{}})
			},
		},
		{name: "deleted nil pod", call: func(h cache.ResourceEventHandlerFuncs) { h.OnDelete((*Pod)(nil)) }},
		{name: "deleted pod without claims", call: func(h cache.ResourceEventHandlerFuncs) { h.OnDelete(slimPod("idle", v1.PodRunning, true)) }},
		{
			name: "running to succeeded: not released before the pod is gone",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnUpdate(slimRunning, slimPod("web-0", v1.PodSucceeded, true, "data", "logs"))
			},
		},
		{
			name: "pending to running",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnUpdate(slimPod("web-0", v1.PodPending, true, "data"), slimPod("web-0", v1.PodRunning, true, "data"))
			},
		},
		{
			name: "unscheduled to failed: never counted",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnUpdate(slimPod("web-0", v1.PodPending, false, "data"), slimPod("web-0", v1.PodFailed, false, "data"))
			},
		},
		{name: "update of something else", call: func(h cache.ResourceEventHandlerFuncs) { h.OnUpdate(&v1.Node{}, slimRunning) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			tc.call(releaseHandler(func(namespace, claim string) { got = append(got, namespace+"/"+claim) }))
			if !slices.Equal(got, tc.want) {
				t.Errorf("released %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNewTrackerErrors(t *testing.T) {
	t.Run("informer already started", func(t *testing.T) {
		f := start(t, fake.NewClientset(), nil)
		if _, err := NewTracker(f.informer); err == nil {
			t.Error("NewTracker on a started informer: no error")
		}
	})
	t.Run("index name taken", func(t *testing.T) {
		informer := coreinformers.NewPodInformer(fake.NewClientset(), "", 0, cache.Indexers{claimIndex: cache.MetaNamespaceIndexFunc})
		if _, err := NewTracker(informer); err == nil {
			t.Error("NewTracker with a conflicting index: no error")
		}
	})
}

func TestOnReleaseAfterStop(t *testing.T) {
	informer := coreinformers.NewPodInformer(fake.NewClientset(), "", 0, cache.Indexers{})
	tracker, err := NewTracker(informer)
	if err != nil {
		t.Fatalf("NewTracker: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	informer.RunWithContext(ctx) // returns at once: the context is done
	if err := tracker.OnRelease(func(string, string) {}); err == nil {
		t.Error("OnRelease on a stopped informer: no error")
	}
}

func isTombstone(obj any) bool {
	_, ok := obj.(cache.DeletedFinalStateUnknown)
	return ok
}
