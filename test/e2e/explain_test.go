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
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/pkg/plugin"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// explainerName is the ServiceAccount `kubectl csi-resizer explain` runs
// as: it gets the ClusterRole of deploy/kubernetes/explain-rbac.yaml, get
// and list only, and nothing else.
const explainerName = "csi-resizer-explain"

// withLease makes the resizer take its Lease, as every deployment does,
// so that explain can tell it runs.
var withLease = []string{"--leader-election", "--leader-election-namespace=" + resizerNamespace}

var (
	bindExplainerOnce sync.Once
	errBindExplainer  error
)

// bindExplainer binds the explain identity to the ClusterRole of
// explain-rbac.yaml.
func bindExplainer(t *testing.T) {
	t.Helper()
	bindExplainerOnce.Do(func() {
		objs, err := framework.ReadObjects(filepath.Join("..", "..", "deploy", "kubernetes", "explain-rbac.yaml"))
		if err != nil {
			errBindExplainer = err
			return
		}
		for _, obj := range objs {
			role, ok := obj.(*rbacv1.ClusterRole)
			if !ok {
				errBindExplainer = errors.New("explain-rbac.yaml holds more than a ClusterRole")
				return
			}
			if _, err := cluster.Admin.RbacV1().ClusterRoles().Create(context.Background(), role, createOpts()); err != nil && !apierrors.IsAlreadyExists(err) {
				errBindExplainer = err
				return
			}
			_, errBindExplainer = cluster.Admin.RbacV1().ClusterRoleBindings().Create(context.Background(), &rbacv1.ClusterRoleBinding{
				ObjectMeta: metaName(role.Name),
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: resizerNamespace, Name: explainerName}},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			}, createOpts())
		}
	})
	must(t, errBindExplainer)
}

// explainBinary is E2E_EXPLAIN, else the plugin `make build` puts beside
// the resizer.
func explainBinary() string {
	if b := os.Getenv("E2E_EXPLAIN"); b != "" {
		return b
	}
	return filepath.Join(filepath.Dir(tools.Resizer), plugin.ProgramName)
}

// runExplain runs the plugin as the explain identity.
func runExplain(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(explainBinary(), append([]string{"--kubeconfig=" + kubeconfigExplain}, args...)...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", explainBinary(), err)
	}
	return out.String(), errOut.String(), code
}

// explain explains the claim as JSON, and logs the text an operator sees.
func (e *env) explain(claim string, extra ...string) plugin.Explanation {
	e.t.Helper()
	args := append([]string{"explain", "-n", e.ns, claim}, extra...)
	text, stderr, code := runExplain(e.t, args...)
	if code != 0 {
		e.t.Fatalf("explain %s exited with %d: %s", claim, code, stderr)
	}
	e.t.Logf("kubectl csi-resizer %s\n%s", strings.Join(args, " "), text)
	out, stderr, code := runExplain(e.t, append(args, "-o", "json")...)
	if code != 0 {
		e.t.Fatalf("explain -o json %s exited with %d: %s", claim, code, stderr)
	}
	var x plugin.Explanation
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		e.t.Fatalf("explain -o json: %v\n%s", err, out)
	}
	if len(x.Warnings) > 0 {
		e.t.Errorf("explain could not read everything with get and list: %q", x.Warnings)
	}
	return x
}

// checkExplained checks what x says of operation op: its state, who owns
// the next step, and phrases of its summary, next step and advice.
func checkExplained(t *testing.T, x plugin.Explanation, op, state, by string, says ...string) {
	t.Helper()
	for _, o := range x.Operations {
		if o.Operation != op {
			continue
		}
		if o.State != state || o.NextStepBy != by {
			t.Errorf("%s: state %s, next step by %s; want %s, %s (%+v)", op, o.State, o.NextStepBy, state, by, o)
		}
		text := strings.Join(append([]string{o.Summary, o.Next}, o.UserCan...), "\n")
		for _, s := range says {
			if !strings.Contains(text, s) {
				t.Errorf("%s: explanation lacks %q:\n%s", op, s, text)
			}
		}
		return
	}
	t.Errorf("no operation %s in %+v", op, x)
}

// operationOf is x's operation op; the zero Operation when it has none.
func operationOf(x plugin.Explanation, op string) plugin.Operation {
	for _, o := range x.Operations {
		if o.Operation == op {
			return o
		}
	}
	return plugin.Operation{}
}

// checkDecision checks the plain words of the decision on operation op.
func checkDecision(t *testing.T, x plugin.Explanation, op, want string) {
	t.Helper()
	if got := operationOf(x, op).Decision.Summary; got != want {
		t.Errorf("%s: decision %q, want %q", op, got, want)
	}
}

// checkRunning checks that x found the resizer running.
func (e *env) checkRunning(x plugin.Explanation) {
	e.t.Helper()
	if x.Resizer == nil || x.Resizer.Status != plugin.ResizerRunning || x.Resizer.Namespace != resizerNamespace {
		e.t.Errorf("resizer = %+v, want running with its Lease in %s", x.Resizer, resizerNamespace)
	}
}

func (e *env) waitResizeStatus(claim string, status string) {
	e.t.Helper()
	e.waitClaim(claim, "resize status "+status, func(pvc *v1.PersistentVolumeClaim) bool { return string(framework.ResizeStatus(pvc)) == status })
}

// TestExplainResizeStates explains claims in each controller state the
// mock driver can be scripted into, a finished one, one of another driver,
// and one whose resizer has stopped.
func TestExplainResizeStates(t *testing.T) {
	bindExplainer(t)
	// A slow first retry keeps a claim that failed in its state while it
	// is explained; infeasible sizes wait --retry-interval-max.
	e := newEnv(t, framework.DriverOptions{}, append(withLease, "--retry-interval-start=30s", "--retry-interval-max=5m")...)

	e.volume("done", "1Gi")
	e.grow("done", "2Gi")
	e.waitClaim("done", "the resize", finished("2Gi"))
	x := e.explain("done")
	e.checkRunning(x)
	checkExplained(t, x, "resize", plugin.StateNone, plugin.ByNone, "Nothing to do: the claim has 2Gi, and requests 2Gi.")
	checkExplained(t, x, "modify", plugin.StateNone, plugin.ByNone, "No VolumeAttributesClass is asked for.")

	must(t, e.driver.Script(framework.Answer{Delay: "8s"}))
	e.volume("slow", "1Gi")
	e.grow("slow", "2Gi")
	e.waitFact("slow", fact{reason: events.ReasonResizing, words: []string{"External resizer is resizing volume"}})
	x = e.explain("slow")
	checkExplained(t, x, "resize", "controller_in_progress", plugin.ByDriver, "The driver is expanding the volume to 2Gi", "Nothing but wait")
	e.waitClaim("slow", "the slow resize", finished("2Gi"))

	must(t, e.driver.Script(framework.Answer{Code: "OutOfRange", Message: "at most 5Gi per volume"}))
	e.volume("big", "1Gi")
	e.grow("big", "10Gi")
	e.waitResizeStatus("big", "ControllerResizeInfeasible")
	x = e.explain("big")
	checkExplained(t, x, "resize", "controller_infeasible", plugin.ByUser, "The driver refused 10Gi as infeasible", "at most 5Gi per volume",
		"The resizer will retry 10Gi at most every 5m0s unless the request changes",
		"Lower the request to between 1Gi (exclusive, the current capacity) and 10Gi (exclusive)")
	checkDecision(t, x, "resize", "The resizer will only retry 10Gi, which the driver refused, at most every 5m0s: nothing changes until the request does.")

	// NotFound: the driver does not know the volume, which no size fixes.
	lost := e.volume("lost", "1Gi")
	must(t, e.driver.Script(framework.Answer{VolumeID: lost.Handle, Code: "NotFound", Message: "no such volume"}))
	e.grow("lost", "2Gi")
	e.waitResizeStatus("lost", "ControllerResizeInfeasible")
	x = e.explain("lost")
	checkExplained(t, x, "resize", "controller_infeasible", plugin.ByUser, "no such volume",
		`The driver does not know the volume (NotFound): it has no volume with the handle "`+lost.Handle+`"`,
		"every attempt, at any size, fails the same way until the driver knows the volume", `Check PV pv-`+e.ns+`-lost: its spec.csi.volumeHandle "`+lost.Handle+`"`)
	checkDecision(t, x, "resize", "The resizer will only retry 2Gi, which the driver refused, at most every 5m0s: nothing changes until the driver knows the volume.")
	if op := operationOf(x, "resize"); strings.Contains(strings.Join(op.UserCan, "\n"), "Lower the request") {
		t.Errorf("NotFound: explain advises another size: %q", op.UserCan)
	}

	must(t, e.driver.Script(framework.Answer{Code: "Internal", Message: "the backend is down"}))
	e.volume("failing", "1Gi")
	e.grow("failing", "3Gi")
	e.waitClaim("failing", "the final failure", func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.HasCondition(pvc, v1.PersistentVolumeClaimControllerResizeError)
	})
	x = e.explain("failing")
	checkExplained(t, x, "resize", "controller_error", plugin.ByResizer, "was a final failure", "the backend is down",
		"tries again with backoff", "Lower the request to between 1Gi (exclusive, the current capacity) and 3Gi (exclusive)")

	// A claim of another driver: the resizer of ours says so, and names it.
	other := framework.Volume{Namespace: e.ns, Claim: "foreign", Class: e.class, Driver: "other.csi.example.com", Handle: "other-1", Size: "1Gi"}
	_, err := framework.CreateBound(e.ctx, cluster.Admin, other)
	must(t, err)
	x = e.explain("foreign", "--driver="+e.driver.Name)
	if x.Owner.Handled || x.Owner.Driver != "other.csi.example.com" || len(x.Operations) != 0 ||
		!strings.Contains(x.Owner.Why, "not handled by the resizer of "+e.driver.Name+": the volume belongs to CSI driver other.csi.example.com") {
		t.Errorf("owner of a claim of another driver = %+v, operations %+v", x.Owner, x.Operations)
	}
	x = e.explain("foreign")
	if !x.Owner.Handled || x.Resizer == nil || x.Resizer.Status != plugin.ResizerNotRunning ||
		!strings.Contains(x.Resizer.Summary, "no resizer is running for driver other.csi.example.com") {
		t.Errorf("explained for its own driver: owner %+v, resizer %+v", x.Owner, x.Resizer)
	}

	// The resizer stops (and releases its Lease): the next step of the
	// failing claim is nobody's.
	must(t, e.resizer.Stop(30*time.Second))
	x = e.explain("failing")
	if x.Resizer == nil || x.Resizer.Status != plugin.ResizerNotRunning || !strings.Contains(x.Resizer.Summary, "the last leader released it") {
		t.Errorf("resizer after its stop = %+v, want not running, its Lease released", x.Resizer)
	}
	checkExplained(t, x, "resize", "controller_error", plugin.ByNobody, "No resizer is running for driver "+e.driver.Name)

	_, stderr, code := runExplain(t, "explain", "-n", e.ns, "missing")
	if want := `persistentvolumeclaims "` + e.ns + `/missing" not found`; code != plugin.ExitError || !strings.Contains(stderr, want) {
		t.Errorf("explain of a missing claim: exit code %d, stderr %q; want %d and %q", code, stderr, plugin.ExitError, want)
	}
}

// TestExplainNodePending: the volume is expanded and the file system waits
// for kubelet, which needs a pod; then kubelet's own states, written by a
// real kubelet: NodeExpandVolume held (node_in_progress), then kubelet
// restarted and the driver's answer OutOfRange (node_infeasible).
func TestExplainNodePending(t *testing.T) {
	bindExplainer(t)
	e := newEnv(t, framework.DriverOptions{NodeExpansionRequired: true}, withLease...)
	v := e.volume("data", "1Gi")
	e.grow("data", "2Gi")
	e.waitResizeStatus("data", "NodeResizePending")
	x := e.explain("data")
	e.checkRunning(x)
	checkExplained(t, x, "resize", "node_pending", plugin.ByUser, "The volume is expanded to 2Gi", "no pod uses it now", "Start a pod that uses the claim")

	// A pod object on a node no kubelet runs: what explain reads of pods.
	e.runningPod("app", "data")
	x = e.explain("data")
	checkExplained(t, x, "resize", "node_pending", plugin.ByKubelet, "kubelet grows the file system for pod(s) app")
	// No kubelet runs on its node: only a force delete removes it.
	must(t, cluster.Admin.CoreV1().Pods(e.ns).Delete(e.ctx, "app", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}))

	node := e.startNode("node")
	must(t, e.driver.Script(
		framework.Answer{Method: csidriver.MethodNodeExpand, VolumeID: v.Handle, Delay: "1m"},
		framework.Answer{Method: csidriver.MethodNodeExpand, VolumeID: v.Handle, Code: "OutOfRange", Message: "resize2fs: no space left on device"}))
	_, err := cluster.Admin.CoreV1().Pods(e.ns).Create(e.ctx, podOn(node, "app-2", "data"), metav1.CreateOptions{})
	must(t, err)
	e.waitResizeStatus("data", "NodeResizeInProgress")
	x = e.explain("data")
	checkExplained(t, x, "resize", "node_in_progress", plugin.ByKubelet, "kubelet is growing the file system")

	must(t, node.RestartKubelet(e.ctx))
	e.waitResizeStatus("data", "NodeResizeInfeasible")
	x = e.explain("data")
	checkExplained(t, x, "resize", "node_infeasible", plugin.ByUser, "kubelet found 2Gi infeasible on the node:", "resize2fs: no space left on device",
		"Nothing, until the request asks for another size", "Lower the request to between 1Gi (exclusive, the current capacity) and 2Gi (exclusive)")
}

// podOn is a pod on node that mounts claim.
func podOn(node *framework.Node, name, claim string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PodSpec{
			NodeName:                     node.Name,
			AutomountServiceAccountToken: ptr.To(false),
			Containers:                   []v1.Container{{Name: "app", Image: "registry.example.com/app:1", VolumeMounts: []v1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes: []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{
				PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
			}}},
		},
	}
}

// TestExplainWaitingInUse: the driver expands offline only, and a pod runs.
func TestExplainWaitingInUse(t *testing.T) {
	bindExplainer(t)
	e := newEnv(t, framework.DriverOptions{OfflineOnly: true}, withLease...)
	e.volume("data", "1Gi")
	e.runningPod("app", "data")
	e.grow("data", "2Gi")
	e.waitFact("data", heldInUse("[app]"))
	x := e.explain("data")
	e.checkRunning(x)
	checkExplained(t, x, "resize", "waiting_in_use", plugin.ByUser, "pod(s) app use it", "once the pods that use the claim are deleted", "Delete pod(s) app")
}

// TestExplainModifyStates explains a modification waiting for its class,
// one in flight, one the driver refused, and one done.
func TestExplainModifyStates(t *testing.T) {
	bindExplainer(t)
	e := newEnv(t, modifiable, append(withLease, "--retry-interval-max=5m")...)

	e.volume("pending", "1Gi")
	missing := e.ns + "-gold"
	e.setClass("pending", missing)
	e.waitModifyStatus("pending", missing, v1.PersistentVolumeClaimModifyVolumePending)
	x := e.explain("pending")
	e.checkRunning(x)
	checkExplained(t, x, "modify", "pending", plugin.ByUser, `asks for VolumeAttributesClass "`+missing+`", which does not exist`,
		`Create VolumeAttributesClass "`+missing+`" with driverName `+e.driver.Name)

	fast := e.attributesClass("fast", map[string]string{"iops": "3000"})
	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Delay: "8s"}))
	e.volume("slow", "1Gi")
	e.setClass("slow", fast)
	e.waitFact("slow", fact{reason: events.ReasonModify, words: []string{"external resizer is modifying volume slow with vac " + fast}})
	x = e.explain("slow")
	checkExplained(t, x, "modify", "in_progress", plugin.ByDriver, `The driver is applying class "`+fast+`"`)
	e.waitClaim("slow", "the slow modification", modified(fast))

	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Code: "InvalidArgument", Message: "iops 3000 is above the limit"}))
	e.volume("refused", "1Gi")
	e.setClass("refused", fast)
	e.waitModifyStatus("refused", fast, v1.PersistentVolumeClaimModifyVolumeInfeasible)
	x = e.explain("refused")
	checkExplained(t, x, "modify", "infeasible", plugin.ByUser, `The driver refused class "`+fast+`" as infeasible`, "iops 3000 is above the limit",
		`The driver refused the parameters of class "`+fast+`" (InvalidArgument)`, `Compare the parameters of VolumeAttributesClass "`+fast+`" (iops=3000)`,
		`The resizer retries class "`+fast+`" in about`, "remove spec.volumeAttributesClassName")
	if d := operationOf(x, "modify").Decision.Summary; !strings.HasPrefix(d, `The resizer will only retry class "`+fast+`", which the driver refused, in about`) {
		t.Errorf("modify: decision %q", d)
	}

	x = e.explain("slow")
	checkExplained(t, x, "modify", plugin.StateNone, plugin.ByNone, `The volume is at the class the claim asks for, "`+fast+`".`)
}
