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

package sidecar

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/driver"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: https://10.0.0.1:6443
contexts:
- name: test
  context:
    cluster: test
    user: test
current-context: test
users:
- name: test
  user:
    token: not-a-secret
`

func TestRestConfig(t *testing.T) {
	good := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(good, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		name     string
		opts     options.Options
		inPod    bool
		wantHost string
		wantErr  []string
	}{
		{name: "kubeconfig", opts: options.Options{Kubeconfig: good}, wantHost: "https://10.0.0.1:6443"},
		{name: "--master overrides the kubeconfig", opts: options.Options{Kubeconfig: good, Master: "https://10.0.0.2:6443"},
			wantHost: "https://10.0.0.2:6443"},
		{name: "--master alone", opts: options.Options{Master: "https://10.0.0.3:6443"}, wantHost: "https://10.0.0.3:6443"},
		{name: "kubeconfig that does not exist", opts: options.Options{Kubeconfig: missing},
			wantErr: []string{"build Kubernetes client configuration", missing}},
		{name: "in-cluster outside a cluster", inPod: true,
			wantErr: []string{"build Kubernetes client configuration"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.inPod {
				t.Setenv("KUBERNETES_SERVICE_HOST", "")
				t.Setenv("KUBERNETES_SERVICE_PORT", "")
			}
			o := tc.opts
			o.KubeAPIQPS, o.KubeAPIBurst = 7.5, 15
			config, err := restConfig(&o)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("restConfig = %+v, want an error", config)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("restConfig error %q does not mention %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("restConfig: %v", err)
			}
			if config.Host != tc.wantHost {
				t.Errorf("host = %q, want %q", config.Host, tc.wantHost)
			}
			if config.QPS != 7.5 || config.Burst != 15 {
				t.Errorf("QPS, burst = %v, %v, want 7.5, 15", config.QPS, config.Burst)
			}
			if config.ContentType != runtime.ContentTypeProtobuf {
				t.Errorf("content type = %q, want protobuf", config.ContentType)
			}
			if config.UserAgent != options.ProgramName {
				t.Errorf("user agent = %q, want %q", config.UserAgent, options.ProgramName)
			}
		})
	}
}

// burst counts the requests a client's rate limiter lets through at once.
// The QPS of the tests is so low that no token comes back meanwhile.
func burst(t *testing.T, client kube.Interface) int {
	t.Helper()
	limiter := client.CoreV1().RESTClient().GetRateLimiter()
	if limiter == nil {
		t.Fatal("client has no rate limiter")
	}
	n := 0
	for limiter.TryAccept() {
		n++
		if n > 1000 {
			t.Fatal("rate limiter without limit")
		}
	}
	return n
}

func TestNewClients(t *testing.T) {
	config := &rest.Config{Host: "https://10.0.0.1:6443", QPS: 0.001, Burst: 3}
	cs, err := newClients(config)
	if err != nil {
		t.Fatalf("newClients: %v", err)
	}
	tests := []struct {
		name      string
		client    kube.Interface
		wantQPS   float32
		wantBurst int
	}{
		{name: "work", client: cs.work, wantQPS: 0.001, wantBurst: 3},
		{name: "events get twice the budget", client: cs.events, wantQPS: 0.002, wantBurst: 6},
		{name: "leader election has its own budget", client: cs.leader, wantQPS: 0.001, wantBurst: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.client.CoreV1().RESTClient().GetRateLimiter().QPS(); got != tc.wantQPS {
				t.Errorf("QPS = %v, want %v", got, tc.wantQPS)
			}
			if got := burst(t, tc.client); got != tc.wantBurst {
				t.Errorf("burst = %d, want %d", got, tc.wantBurst)
			}
		})
	}
	if config.QPS != 0.001 || config.Burst != 3 {
		t.Errorf("newClients changed its configuration to QPS %v, burst %d", config.QPS, config.Burst)
	}
}

func TestNewClientsBadConfig(t *testing.T) {
	_, err := newClients(&rest.Config{Host: "::not a url::"})
	if err == nil || !strings.Contains(err.Error(), "create work client") {
		t.Errorf("newClients with a bad host = %v, want an error about the work client", err)
	}
}

func TestRecorder(t *testing.T) {
	client := fake.NewClientset()
	recorder, stop := newRecorder(kubetest.Wrap(client), testDriver)
	defer stop()
	pvc := claim("data", "2Gi", "1Gi")
	recorder.Event(pvc, v1.EventTypeNormal, "Resizing", "External resizer is resizing volume pv-data")
	waitFor(t, "the event to be written", func() (bool, error) {
		events, err := client.CoreV1().Events(testNamespace).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.Reason == "Resizing" && e.InvolvedObject.Name == "data" {
				if want := "external-resizer " + testDriver; e.Source.Component != want {
					t.Errorf("event source = %q, want %q", e.Source.Component, want)
				}
				return true, nil
			}
		}
		return false, nil
	})
}

// servesAttributeClasses makes the fake API server's discovery list
// VolumeAttributesClasses.
func servesAttributeClasses(client *fake.Clientset) {
	client.Resources = append(client.Resources, &metav1.APIResourceList{
		GroupVersion: attributeClassesGroupVersion,
		APIResources: []metav1.APIResource{{Name: "storageclasses"}, {Name: attributeClassesResource}},
	})
}

func TestModification(t *testing.T) {
	modifying := &connectedDriver{name: testDriver, caps: driver.Capabilities{ControllerModify: true}}
	tests := []struct {
		name    string
		flags   []string
		driver  *connectedDriver
		api     func(*fake.Clientset)
		want    bool
		wantWhy string
		wantErr string
	}{
		{name: "on", driver: modifying, api: servesAttributeClasses, want: true},
		{name: "gate off", flags: []string{"--feature-gates=VolumeAttributesClass=false"}, driver: modifying,
			api: servesAttributeClasses, wantWhy: "feature gate VolumeAttributesClass is off"},
		{name: "driver without MODIFY_VOLUME", driver: &connectedDriver{name: testDriver}, api: servesAttributeClasses,
			wantWhy: "does not advertise the controller capability MODIFY_VOLUME"},
		{name: "group version not served", driver: modifying, api: func(*fake.Clientset) {},
			wantWhy: "API server does not serve storage.k8s.io/v1 volumeattributesclasses"},
		{name: "group version served without the resource", driver: modifying,
			api: func(c *fake.Clientset) {
				c.Resources = []*metav1.APIResourceList{{GroupVersion: attributeClassesGroupVersion, APIResources: []metav1.APIResource{{Name: "storageclasses"}}}}
			},
			wantWhy: "API server does not serve"},
		{name: "discovery fails", driver: modifying,
			api: func(c *fake.Clientset) {
				c.PrependReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("connection refused")
				})
			},
			wantErr: "discover storage.k8s.io/v1 volumeattributesclasses: connection refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			tc.api(client)
			o := newOptions(t, csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver}), tc.flags...)
			got, why, err := modification(o, tc.driver, client.Discovery())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("modification() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || !strings.Contains(why, tc.wantWhy) {
				t.Errorf("modification() = %v, %q; want %v, %q", got, why, tc.want, tc.wantWhy)
			}
			if got && why != "" || !got && why == "" {
				t.Errorf("modification() = %v with reason %q: a reason is given exactly when it is off", got, why)
			}
		})
	}
}

// TestRunModifies: a driver that only modifies volumes (no expansion at
// all) runs, and a claim reaches the class its spec names.
func TestRunModifies(t *testing.T) {
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerModify: true})
	pvc := claim("data", "1Gi", "1Gi", testobj.AttributesClasses("gold", ""))
	gold := testobj.AttributesClass("gold", testDriver, map[string]string{"iops": "3000"})
	client := newFakeAPI(pvc, testobj.Volume(pvc, testDriver, "1Gi", testobj.Classes("", "")), gold)
	servesAttributeClasses(client)
	s := startSidecar(t, newOptions(t, d), fakeClients(client))

	ctx := context.Background()
	waitFor(t, "the claim to reach class gold", func() (bool, error) {
		got, err := getClaim(ctx, client, "data")
		if err != nil {
			return false, err
		}
		cur := got.Status.CurrentVolumeAttributesClassName
		return cur != nil && *cur == "gold" && got.Status.ModifyVolumeStatus == nil, nil
	})
	pv, err := getVolume(ctx, client, "pv-data")
	if err != nil {
		t.Fatal(err)
	}
	if c := pv.Spec.VolumeAttributesClassName; c == nil || *c != "gold" {
		t.Errorf("PV class = %v, want gold", c)
	}
	calls := d.ModifyCalls()
	if len(calls) != 1 || calls[0].VolumeID != "vol-data" || calls[0].MutableParameters["iops"] != "3000" {
		t.Errorf("ControllerModifyVolume calls = %+v, want one for vol-data with iops=3000", calls)
	}
	if got := d.Calls(); len(got) != 0 {
		t.Errorf("ControllerExpandVolume calls = %d, want none", len(got))
	}
	s.cancel()
	if err := s.wait(waitTimeout); err != nil {
		t.Errorf("run after cancel = %v, want nil", err)
	}
}

// TestRunModificationOffWatchesNoClasses: with modification off the
// resizer never lists VolumeAttributesClasses (it may lack the RBAC), and a
// claim's class change is left alone.
func TestRunModificationOffWatchesNoClasses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   csidriver.Config
		flags []string
	}{
		{name: "gate off", cfg: csidriver.Config{DriverName: testDriver, ControllerExpand: true, ControllerModify: true},
			flags: []string{"--feature-gates=VolumeAttributesClass=false"}},
		{name: "driver without MODIFY_VOLUME", cfg: csidriver.Config{DriverName: testDriver, ControllerExpand: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, tc.cfg)
			objs := resizeObjects(testDriver)
			objs[0].(*v1.PersistentVolumeClaim).Spec.VolumeAttributesClassName = ptr("gold")
			gold := testobj.AttributesClass("gold", testDriver, nil)
			client := newFakeAPI(append(objs, gold)...)
			servesAttributeClasses(client)
			listed := make(chan struct{}, 1)
			client.PrependReactor("list", "volumeattributesclasses", func(clienttesting.Action) (bool, runtime.Object, error) {
				listed <- struct{}{}
				return false, nil, nil
			})
			s := startSidecar(t, newOptions(t, d, tc.flags...), fakeClients(client))
			waitClaimFinished(t, client, "data", "2Gi")
			select {
			case <-listed:
				t.Error("VolumeAttributesClasses were listed with modification off")
			default:
			}
			if got, _ := getClaim(context.Background(), client, "data"); got.Status.CurrentVolumeAttributesClassName != nil || got.Status.ModifyVolumeStatus != nil {
				t.Errorf("claim status = %+v, want no class recorded", got.Status)
			}
			if n := len(d.ModifyCalls()); n != 0 {
				t.Errorf("ControllerModifyVolume calls = %d, want none", n)
			}
			s.cancel()
			_ = s.wait(waitTimeout)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestPodWatchOf(t *testing.T) {
	offline := driver.Capabilities{ControllerExpand: true, OfflineExpansion: true}
	online := driver.Capabilities{ControllerExpand: true, OnlineExpansion: true}
	both := driver.Capabilities{ControllerExpand: true, OnlineExpansion: true, OfflineExpansion: true}
	tests := []struct {
		name        string
		handleInUse bool
		caps        driver.Capabilities
		node        string
		want        bool
		// why is a part of the reason logged.
		why string
	}{
		{name: "offline only, flag on: watch", handleInUse: true, caps: offline, want: true, why: "OFFLINE expansion only"},
		{name: "offline only, node-only driver: watch", handleInUse: true, caps: driver.Capabilities{NodeExpand: true, OfflineExpansion: true}, want: true, why: "OFFLINE expansion only"},
		{name: "offline only, node deployment: the node's pods", handleInUse: true, caps: offline, node: "n1", want: true, why: "only the pods of node n1"},
		{name: "online: no watch", handleInUse: true, caps: online, why: "ONLINE expansion"},
		{name: "online and offline: no watch", handleInUse: true, caps: both, why: "ONLINE expansion"},
		{name: "online, node deployment: no watch", handleInUse: true, caps: online, node: "n1", why: "retried with backoff"},
		{name: "no expansion type: read as online", handleInUse: true, caps: driver.Capabilities{ControllerExpand: true}, why: "no VolumeExpansion type"},
		{name: "flag off, offline only: no watch", caps: offline, why: "--handle-volume-inuse-error is off"},
		{name: "flag off, node deployment: no watch", caps: offline, node: "n1", why: "--handle-volume-inuse-error is off"},
		{name: "no expansion (modification only): no watch", handleInUse: true, caps: driver.Capabilities{OfflineExpansion: true, ControllerModify: true}, why: "does not expand"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			watch, why := podWatchOf(tc.handleInUse, tc.caps, tc.node)
			if watch != tc.want {
				t.Errorf("watch = %v, want %v (%s)", watch, tc.want, why)
			}
			if !strings.Contains(why, tc.why) {
				t.Errorf("why = %q, want it to say %q", why, tc.why)
			}
			if want := map[bool]string{true: "Watching pods", false: "Not watching pods"}[tc.want]; podWatchMessage[watch] != want {
				t.Errorf("message = %q, want %q", podWatchMessage[watch], want)
			}
		})
	}
}

const driverNodeKey = "topology.test.csi/node"

func testNode(name string, labels map[string]string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// TestRunNodeDeployment runs the resizer of node-1 among the claims of
// several nodes: it resizes the claim pinned to node-1, refuses the zonal
// one with a warning, leaves the others, and takes a claim when a label of
// its node comes to match.
func TestRunNodeDeployment(t *testing.T) {
	t.Setenv(options.NodeNameEnv, "node-1")
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true, NoNodeService: true})
	mine, zonal, theirs, loose, later := claim("mine", "2Gi", "1Gi"), claim("zonal", "2Gi", "1Gi"),
		claim("theirs", "2Gi", "1Gi"), claim("loose", "2Gi", "1Gi"), claim("later", "2Gi", "1Gi")
	laterPV := testobj.Volume(later, testDriver, "1Gi", testobj.PinnedTo(driverNodeKey, "node-1"))
	laterPV.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions = append(laterPV.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions,
		v1.NodeSelectorRequirement{Key: "pool", Operator: v1.NodeSelectorOpIn, Values: []string{"fast"}})
	node1Labels := map[string]string{v1.LabelHostname: "node-1", driverNodeKey: "node-1", v1.LabelTopologyZone: "z1"}
	client := newFakeAPI(
		testNode("node-1", node1Labels),
		testNode("node-2", map[string]string{v1.LabelHostname: "node-2", driverNodeKey: "node-2", v1.LabelTopologyZone: "z1"}),
		mine, testobj.Volume(mine, testDriver, "1Gi", testobj.PinnedTo(driverNodeKey, "node-1")),
		zonal, testobj.Volume(zonal, testDriver, "1Gi", testobj.PinnedTo(v1.LabelTopologyZone, "z1")),
		theirs, testobj.Volume(theirs, testDriver, "1Gi", testobj.PinnedTo(driverNodeKey, "node-2")),
		loose, testobj.Volume(loose, testDriver, "1Gi"),
		later, laterPV,
	)
	startSidecar(t, newOptions(t, d, "--node-deployment"), fakeClients(client))
	waitClaimFinished(t, client, "mine", "2Gi")

	ctx := context.Background()
	waitFor(t, "the warning on the zonal claim", func() (bool, error) {
		events, err := client.CoreV1().Events(testNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.Reason == "NodeAffinityConflict" {
				if e.InvolvedObject.Name != "zonal" || e.Type != v1.EventTypeWarning ||
					!strings.Contains(e.Message, "(topology.kubernetes.io/zone In [z1]) pins no node") {
					t.Errorf("event %s on %s: %q", e.Reason, e.InvolvedObject.Name, e.Message)
				}
				return true, nil
			}
		}
		return false, nil
	})

	// A label of node-1's that the later claim's volume needs. The cache
	// keeps only what ownership reads of that volume, another node's when it
	// was listed: the PV is read whole from the API server when it becomes
	// the node's.
	node, err := client.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Labels["pool"] = "fast"
	client.ClearActions()
	if _, err := client.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the later claim's capacity", func() (bool, error) {
		pvc, err := getClaim(ctx, client, "later")
		return err == nil && quantityIs(pvc.Status.Capacity, "2Gi"), err
	})
	var read []string
	for _, a := range client.Actions() {
		if g, ok := a.(clienttesting.GetAction); ok && a.GetVerb() == "get" && a.GetResource().Resource == "persistentvolumes" {
			read = append(read, g.GetName())
		}
	}
	if !slices.Contains(read, laterPV.Name) {
		t.Errorf("PVs read from the API server: %v, want %s", read, laterPV.Name)
	}
	waitClaimFinished(t, client, "later", "2Gi")

	var volumes []string
	for _, c := range d.Calls() {
		volumes = append(volumes, c.VolumeID)
	}
	if got := strings.Join(volumes, ","); got != "vol-mine,vol-later" {
		t.Errorf("ControllerExpandVolume calls for %s, want vol-mine,vol-later", got)
	}
	for _, name := range []string{"zonal", "theirs", "loose"} {
		pvc, err := getClaim(ctx, client, name)
		if err != nil {
			t.Fatal(err)
		}
		if !quantityIs(pvc.Status.Capacity, "1Gi") || pvc.Status.AllocatedResources != nil || pvc.Status.Conditions != nil {
			t.Errorf("claim %s was touched: %+v", name, pvc.Status)
		}
	}
}

func TestRunNodeDeploymentFailsAtStart(t *testing.T) {
	tests := []struct {
		name    string
		react   func(clienttesting.Action) (bool, runtime.Object, error)
		wantErr []string
	}{
		{name: "no such node",
			wantErr: []string{`--node-deployment: Node "node-1" does not exist: NODE_NAME must be the name of the node the resizer runs on`}},
		{name: "nodes forbidden",
			react: func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "node-1", nil)
			},
			wantErr: []string{`the resizer may not read its Node "node-1": its role needs get, list and watch on nodes`, "forbidden"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(options.NodeNameEnv, "node-1")
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true, NoNodeService: true})
			client := newFakeAPI(append(resizeObjects(testDriver), testNode("node-2", nil))...)
			if tc.react != nil {
				client.PrependReactor("get", "nodes", tc.react)
			}
			s := startSidecar(t, newOptions(t, d, "--node-deployment"), fakeClients(client))
			err := s.wait(startupTimeout)
			if err == nil {
				t.Fatalf("run = nil, want an error with %q", tc.wantErr)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("run = %q, want it to mention %q", err, want)
				}
			}
		})
	}
}

// TestRunNodeDeploymentKeepsItsLease checks that an instance renews the
// Lease named after its node while it runs and deletes it when it stops.
func TestRunNodeDeploymentKeepsItsLease(t *testing.T) {
	t.Setenv(options.NodeNameEnv, "node-1")
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true, NoNodeService: true})
	client := newFakeAPI(testNode("node-1", map[string]string{v1.LabelHostname: "node-1"}))
	s := startSidecar(t, newOptions(t, d, "--node-deployment", "--leader-election-namespace=drivers", "--leader-election-labels=team:storage"), fakeClients(client))
	ctx, name := context.Background(), options.NodeLeaseName(testDriver, "node-1")
	waitFor(t, "the node Lease", func() (bool, error) {
		l, err := client.CoordinationV1().Leases("drivers").Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		host, _ := os.Hostname()
		if l.Spec.HolderIdentity == nil || options.HostOf(*l.Spec.HolderIdentity) != host || l.Spec.LeaseDurationSeconds == nil ||
			*l.Spec.LeaseDurationSeconds != 40 || l.Spec.RenewTime == nil || l.Labels["team"] != "storage" ||
			l.Labels[options.NodeLeaseLabel] != options.NodeLeaseValue(testDriver) {
			t.Errorf("node Lease of host %q: spec %+v, labels %v", host, l.Spec, l.Labels)
		}
		return true, nil
	})
	s.cancel()
	if err := s.wait(waitTimeout); err != nil {
		t.Fatalf("run: %v", err)
	}
	if _, err := client.CoordinationV1().Leases("drivers").Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("node Lease after the stop: %v, want NotFound", err)
	}
}

// TestRunNodeDeploymentReplacesADeadInstancesLease checks that an instance
// that starts where one died (killed: its node Lease left, no longer
// renewed) takes the Lease over at once: it names the new holder, is
// renewed now, and carries the new instance's labels only, so explain
// reads the live instance, not the dead one.
func TestRunNodeDeploymentReplacesADeadInstancesLease(t *testing.T) {
	t.Setenv(options.NodeNameEnv, "node-1")
	name := options.NodeLeaseName(testDriver, "node-1")
	dead := "gone-host_0badcafe"
	duration, renewed := int32(40), metav1.NewMicroTime(time.Now().Add(-time.Hour))
	stale := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "drivers",
			Labels: map[string]string{"team": "old", options.NodeLeaseLabel: options.NodeLeaseValue(testDriver)}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &dead, LeaseDurationSeconds: &duration, RenewTime: &renewed},
	}
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true, NoNodeService: true})
	client := newFakeAPI(testNode("node-1", map[string]string{v1.LabelHostname: "node-1"}), stale)
	start := time.Now()
	startSidecar(t, newOptions(t, d, "--node-deployment", "--leader-election-namespace=drivers"), fakeClients(client))
	host, _ := os.Hostname()
	waitFor(t, "the node Lease taken over", func() (bool, error) {
		l, err := client.CoordinationV1().Leases("drivers").Get(context.Background(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == dead {
			return false, err
		}
		if options.HostOf(*l.Spec.HolderIdentity) != host || l.Spec.RenewTime == nil || l.Spec.RenewTime.Time.Before(start.Add(-time.Second)) {
			t.Errorf("node Lease after the restart: holder %q, renewed %v; want this host's, renewed since %v", *l.Spec.HolderIdentity, l.Spec.RenewTime, start)
		}
		if _, ok := l.Labels["team"]; ok || l.Labels[options.NodeLeaseLabel] != options.NodeLeaseValue(testDriver) {
			t.Errorf("node Lease labels after the restart: %v, want the new instance's only", l.Labels)
		}
		return true, nil
	})
}

// TestRunNodeDeploymentDoesNotWaitForItsLease checks that an instance
// whose node Lease calls hang, as a loaded API server's did for 136 s in the
// 200-node benchmark, starts all the same: its claim is resized meanwhile,
// and /readyz answers for its caches, not for the Lease (503 until they
// sync).
func TestRunNodeDeploymentDoesNotWaitForItsLease(t *testing.T) {
	t.Setenv(options.NodeNameEnv, "node-1")
	node := testNode("node-1", map[string]string{v1.LabelHostname: "node-1"})
	mine := claim("mine", "2Gi", "1Gi")
	for _, synced := range []bool{true, false} {
		t.Run(map[bool]string{true: "caches sync", false: "caches do not sync"}[synced], func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true, NoNodeService: true})
			client := newFakeAPI(node, mine, testobj.Volume(mine, testDriver, "1Gi", testobj.PinnedTo(v1.LabelHostname, "node-1")))
			if !synced {
				client.PrependReactor("list", "persistentvolumeclaims", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("injected: API server unreachable")
				})
			}
			release := make(chan struct{})
			cs := fakeClients(client)
			cs.leader = stalledLeases{Interface: cs.leader, release: release}
			s := startSidecar(t, newOptions(t, d, "--node-deployment"), cs)
			t.Cleanup(func() { close(release) }) // before the sidecar's stop, which waits for the renewal
			if !synced {
				s.waitReadyz("not synced")
				return
			}
			waitClaimFinished(t, client, "mine", "2Gi")
			s.waitHTTP("/readyz", 200)
		})
	}
}

// stalledLeases is a client whose Lease calls do not return before release
// is closed, whatever their context says; its other calls pass through.
type stalledLeases struct {
	kube.Interface
	release <-chan struct{}
}

func (s stalledLeases) CoordinationV1() kube.CoordinationV1Interface { return s }

func (s stalledLeases) Leases(namespace string) kube.LeaseInterface {
	return stalledLeaseCalls{LeaseInterface: s.Interface.CoordinationV1().Leases(namespace), release: s.release}
}

type stalledLeaseCalls struct {
	kube.LeaseInterface
	release <-chan struct{}
}

func (c stalledLeaseCalls) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error) {
	<-c.release
	return c.LeaseInterface.Get(ctx, name, opts)
}

func (c stalledLeaseCalls) Create(ctx context.Context, l *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error) {
	<-c.release
	return c.LeaseInterface.Create(ctx, l, opts)
}

func (c stalledLeaseCalls) Update(ctx context.Context, l *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	<-c.release
	return c.LeaseInterface.Update(ctx, l, opts)
}

func (c stalledLeaseCalls) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	<-c.release
	return c.LeaseInterface.Delete(ctx, name, opts)
}

// TestPodInformerOfNode checks that a node's instance asks only for the
// pods of its node.
func TestPodInformerOfNode(t *testing.T) {
	for node, want := range map[string]string{"": "", "node-1": "spec.nodeName=node-1"} {
		client := fake.NewClientset()
		var got []string
		client.PrependReactor("list", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
			got = append(got, a.(clienttesting.ListAction).GetListRestrictions().Fields.String())
			return false, nil, nil
		})
		inf := podInformer(kubetest.Wrap(client), node)
		stop := make(chan struct{})
		go inf.Run(stop)
		cache.WaitForCacheSync(stop, inf.HasSynced)
		close(stop)
		if len(got) == 0 || got[0] != want {
			t.Errorf("node %q: pod lists with field selectors %q, want %q", node, got, want)
		}
	}
}
