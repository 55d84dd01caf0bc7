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
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

const driverNodeKey = "topology.test.csi/node"

// onNodes gives the claim's PV one term of key In values.
func onNodes(pv *v1.PersistentVolume, key string, values ...string) *v1.PersistentVolume {
	pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}},
	}}}}
	return pv
}

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
	laterPV := onNodes(volume(later, "1Gi", testDriver), driverNodeKey, "node-1")
	laterPV.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions = append(laterPV.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions,
		v1.NodeSelectorRequirement{Key: "pool", Operator: v1.NodeSelectorOpIn, Values: []string{"fast"}})
	node1Labels := map[string]string{v1.LabelHostname: "node-1", driverNodeKey: "node-1", v1.LabelTopologyZone: "z1"}
	client := newFakeAPI(
		testNode("node-1", node1Labels),
		testNode("node-2", map[string]string{v1.LabelHostname: "node-2", driverNodeKey: "node-2", v1.LabelTopologyZone: "z1"}),
		mine, onNodes(volume(mine, "1Gi", testDriver), driverNodeKey, "node-1"),
		zonal, onNodes(volume(zonal, "1Gi", testDriver), v1.LabelTopologyZone, "z1"),
		theirs, onNodes(volume(theirs, "1Gi", testDriver), driverNodeKey, "node-2"),
		loose, volume(loose, "1Gi", testDriver),
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
			client := newFakeAPI(node, mine, onNodes(volume(mine, "1Gi", testDriver), v1.LabelHostname, "node-1"))
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
