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
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The resizer's RBAC taken away under it, as when an install of the chart
// over rbac.yaml re-points its ClusterRoleBinding at another namespace:
// every status patch gets 403, and that must not go unnoticed.

const (
	// refusedAlert is the chart's alert on refused API requests.
	refusedAlert = "CSIResizerAPIRequestsRefused"
	// runnerRole is the ClusterRole of deploy/kubernetes/rbac.yaml.
	runnerRole = "external-resizer-runner"
	// statusResource is the resource whose rule the test revokes.
	statusResource = "persistentvolumeclaims/status"
)

// servedOnlyOnRefusal tells the selectors of the chart's rules that match
// only when the API server refuses the resizer (the 401 and 403 of
// CSIResizerAPIRequestsRefused), which TestMonitoringMetricsServed cannot
// see: TestAPIRefusalIsLoud checks them against a refused resizer's series.
func servedOnlyOnRefusal(s selector) bool {
	return s.metric == "rest_client_requests_total" && slices.ContainsFunc(s.matchers, func(m matcher) bool {
		return m.name == "code" && !m.matches("200") && (m.matches("401") || m.matches("403"))
	})
}

// TestAPIRefusalIsLoud runs the resizer with the RBAC of
// deploy/kubernetes/rbac.yaml, grows a claim, then takes the rule on
// persistentvolumeclaims/status out of its ClusterRole and grows another.
// The refusal must be impossible to miss: an error in the log naming the
// verb, the resource and the resizer's user; csi_resizer_api_write_failures_total
// and client-go's rest_client_requests_total by code 403 on /metrics; and
// the chart's CSIResizerAPIRequestsRefused firing, as its unit test says,
// on those very series. With the rule back, the claim finishes.
func TestAPIRefusalIsLoud(t *testing.T) {
	rules, groups := renderRules(t)
	rule := ruleOf(t, groups, refusedAlert)
	port, err := framework.FreePort()
	must(t, err)
	e := newEnv(t, framework.DriverOptions{}, "--http-endpoint=127.0.0.1:"+strconv.Itoa(port))
	user := framework.ServiceAccount(resizerNamespace, "csi-resizer").User

	e.volume("before", "1Gi")
	e.grow("before", "2Gi")
	e.waitClaim("before", "the resize with the full RBAC", finished("2Gi"))
	healthy := e.scrapeSamples(port)

	restore := revokeRule(t, user, statusResource)
	e.volume("refused", "1Gi")
	e.grow("refused", "2Gi")

	const refused = "The API server refused a write: check the resizer's RBAC"
	var line string
	e.waitFor("the error log of the refused write", func() bool {
		line = logLine(readLog(t, e.resizer), refused)
		return line != ""
	})
	for _, want := range []string{`verb="patch"`, `resource="` + statusResource + `"`, `user="` + user + `"`} {
		if !strings.Contains(line, want) {
			t.Errorf("the log of the refused write lacks %s:\n%s", want, line)
		}
	}
	t.Logf("the resizer's log: %s", line)
	if !strings.HasPrefix(line, "E") {
		t.Errorf("the refused write is not logged as an error:\n%s", line)
	}
	e.waitFor("the error log of the claim that keeps failing", func() bool {
		return strings.HasPrefix(logLine(readLog(t, e.resizer), "Claim keeps failing; retried with backoff"), "E")
	})

	// Two scrapes with refusals, the second with more: a counter that
	// grows, as Prometheus needs to see it for a rate.
	writes := fmt.Sprintf(`csi_resizer_api_write_failures_total{code="403",driver_name=%q,resource=%q}`, e.driver.Name, statusResource)
	first := e.waitMetric(port, "refused writes", func(s []sample) bool {
		return value(s, writes) > 0 && sum(s, "rest_client_requests_total", "code", "403") > 0
	})
	second := e.waitMetric(port, "more refused writes", func(s []sample) bool {
		return value(s, writes) > value(first, writes) &&
			sum(s, "rest_client_requests_total", "code", "403") > sum(first, "rest_client_requests_total", "code", "403")
	})
	t.Logf("%s: %g, then %g; rest_client_requests_total{code=\"403\"}: %g, then %g", writes,
		value(first, writes), value(second, writes), sum(first, "rest_client_requests_total", "code", "403"), sum(second, "rest_client_requests_total", "code", "403"))
	pvc, err := cluster.Admin.CoreV1().PersistentVolumeClaims(e.ns).Get(e.ctx, "refused", metav1.GetOptions{})
	must(t, err)
	if framework.Capacity(pvc) != "1Gi" || framework.ResizeStatus(pvc) != "" {
		t.Errorf("the claim is at %s (%q) while its status cannot be written", framework.Capacity(pvc), framework.ResizeStatus(pvc))
	}

	// Every selector of the alert matches a series of the refused
	// resizer (there is no 401 here).
	for _, s := range selectors(rule.Expr) {
		if !s.matches(second) && !slices.ContainsFunc(s.matchers, func(m matcher) bool { return m.op == "=" && m.value == "401" }) {
			t.Errorf("%s: no series of the refused resizer matches %s", refusedAlert, s.text)
		}
	}
	checkAlertFires(t, rules, rule, healthy, first, second)

	restore()
	e.waitClaim("refused", "the resize once the rule is back", finished("2Gi"))
}

// revokeRule takes the rules on resource out of the ClusterRole of
// rbac.yaml and waits until the API server refuses user; the function it
// returns (also run at cleanup) puts them back and waits until it allows
// again.
func revokeRule(t *testing.T, user, resource string) func() {
	t.Helper()
	ctx := context.Background()
	roles := cluster.Admin.RbacV1().ClusterRoles()
	role, err := roles.Get(ctx, runnerRole, metav1.GetOptions{})
	must(t, err)
	original := slices.Clone(role.Rules)
	role.Rules = slices.DeleteFunc(role.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, resource) })
	if len(role.Rules) == len(original) {
		t.Fatalf("ClusterRole %s has no rule on %s", runnerRole, resource)
	}
	_, err = roles.Update(ctx, role, metav1.UpdateOptions{})
	must(t, err)
	waitAllowed(t, user, resource, false)
	done := false
	restore := func() {
		if done {
			return
		}
		done = true
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			role, err := roles.Get(ctx, runnerRole, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			role.Rules = original
			_, err = roles.Update(ctx, role, metav1.UpdateOptions{})
			return err == nil, nil
		})
		must(t, err)
		waitAllowed(t, user, resource, true)
	}
	t.Cleanup(restore)
	return restore
}

// waitAllowed waits until the API server's authorizer answers allowed for
// user patching resource (what `kubectl auth can-i patch
// persistentvolumeclaims/status --as=...` asks), so that the resizer meets
// the RBAC the test set.
func waitAllowed(t *testing.T, user, resource string, allowed bool) {
	t.Helper()
	res, sub, _ := strings.Cut(resource, "/")
	id := framework.ServiceAccount(resizerNamespace, "csi-resizer")
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: id.Groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "patch", Resource: res, Subresource: sub, Namespace: "default"},
	}}
	var got bool
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		out, err := cluster.Admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return false, nil
		}
		got = out.Status.Allowed
		return got == allowed, nil
	})
	if err != nil {
		t.Fatalf("patch %s by %s: allowed %v, want %v", resource, user, got, allowed)
	}
}

// logLine returns the first line of log that contains msg.
func logLine(log, msg string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, msg) {
			return l
		}
	}
	return ""
}

func (e *env) scrapeSamples(port int) []sample {
	e.t.Helper()
	text, err := scrape(e.ctx, port)
	must(e.t, err)
	samples, err := parseMetrics(text)
	must(e.t, err)
	return samples
}

// waitMetric scrapes the resizer until cond holds, and returns that scrape.
func (e *env) waitMetric(port int, what string, cond func([]sample) bool) []sample {
	e.t.Helper()
	var samples []sample
	e.waitFor(what+" on /metrics", func() bool {
		samples = e.scrapeSamples(port)
		return cond(samples)
	})
	return samples
}

// value is the value of the series written name{labels} (labels sorted,
// as seriesText writes them), 0 when it is not served.
func value(samples []sample, series string) float64 {
	for _, s := range samples {
		if seriesText(s.name, s.labels) == series {
			v, _ := strconv.ParseFloat(s.value, 64)
			return v
		}
	}
	return 0
}

// sum adds the values of the series of name with label = v.
func sum(samples []sample, name, label, v string) float64 {
	var total float64
	for _, s := range samples {
		if s.name == name && s.labels[label] == v {
			f, _ := strconv.ParseFloat(s.value, 64)
			total += f
		}
	}
	return total
}

func seriesText(name string, labels map[string]string) string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		pairs = append(pairs, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// checkAlertFires runs `promtool test rules` on the chart's rules with the
// scrapes of the resizer as input series, as Prometheus would have them
// from a ServiceMonitor's target (namespace default, container
// csi-resizer): healthy for 10 minutes, first for 5, second from then on.
// The alert must fire as the unit test of testdata/alerts_test.yaml
// expects it (same labels, same annotations, the refused writes named),
// and only once the counters grow.
func checkAlertFires(t *testing.T, rules *unstructured.Unstructured, rule alertRule, healthy, first, second []sample) {
	t.Helper()
	forDuration := duration(t, rule.For)
	const total = 40 // minutes
	phases := []struct {
		from    int
		samples []sample
	}{{0, healthy}, {10, first}, {15, second}}
	at := func(minute int) []sample {
		var out []sample
		for _, p := range phases {
			if minute >= p.from {
				out = p.samples
			}
		}
		return out
	}
	target := map[string]string{"namespace": resizerNamespace, "container": "csi-resizer", "pod": "csi-resizer-0", "instance": "127.0.0.1:8080"}
	values := map[string][]string{}
	for _, p := range phases {
		for _, s := range p.samples {
			if s.name != "rest_client_requests_total" && s.name != "csi_resizer_api_write_failures_total" {
				continue
			}
			labels := maps.Clone(s.labels)
			maps.Copy(labels, target)
			values[seriesText(s.name, labels)] = nil
		}
	}
	for series := range values {
		for m := range total {
			v := "_"
			for _, s := range at(m) {
				labels := maps.Clone(s.labels)
				maps.Copy(labels, target)
				if seriesText(s.name, labels) == series {
					v = s.value
				}
			}
			values[series] = append(values[series], v)
		}
	}
	var input []map[string]string
	for _, series := range slices.Sorted(maps.Keys(values)) {
		input = append(input, map[string]string{"series": series, "values": strings.Join(values[series], " ")})
	}
	firing := 15*time.Minute + forDuration + 2*time.Minute
	if firing >= total*time.Minute {
		t.Fatalf("%s: for %s is too long for the test's %d minutes", refusedAlert, rule.For, total)
	}
	cases := []map[string]any{
		{"eval_time": "9m", "alertname": refusedAlert, "exp_alerts": []any{}},
		{"eval_time": (15*time.Minute + forDuration - time.Minute).String(), "alertname": refusedAlert, "exp_alerts": []any{}},
		{"eval_time": firing.String(), "alertname": refusedAlert, "exp_alerts": expectedRefusedAlert(t)},
	}
	unit := map[string]any{
		"rule_files":          []string{"rules.yaml"},
		"evaluation_interval": "1m",
		"tests": []any{map[string]any{
			"name": "the refused resizer's series", "interval": "1m",
			"input_series": input, "alert_rule_test": cases,
		}},
	}
	dir := t.TempDir()
	writeRules(t, dir, rules)
	data, err := json.MarshalIndent(unit, "", "  ")
	must(t, err)
	path := filepath.Join(dir, "refused_test.yaml")
	must(t, os.WriteFile(path, data, 0o600))
	t.Log(promtool(t, "test", "rules", path))
}

// expectedRefusedAlert is the firing alert the unit test "API requests
// refused" of testdata/alerts_test.yaml expects: a 403 of PATCH requests,
// the refused writes of persistentvolumeclaims/status.
func expectedRefusedAlert(t *testing.T) []any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "alerts_test.yaml"))
	must(t, err)
	var file struct {
		Tests []struct {
			Name  string `json:"name"`
			Cases []struct {
				Alertname string `json:"alertname"`
				ExpAlerts []any  `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	must(t, yaml.Unmarshal(data, &file))
	for _, test := range file.Tests {
		for _, c := range test.Cases {
			if test.Name == "API requests refused" && c.Alertname == refusedAlert && len(c.ExpAlerts) > 0 {
				return c.ExpAlerts
			}
		}
	}
	t.Fatalf("testdata/alerts_test.yaml has no firing %s in its test \"API requests refused\"", refusedAlert)
	return nil
}

// TestChartTakeOwnershipRepointsBinding checks the chart README's warning on
// taking over an existing rbac.yaml: `helm install --take-ownership` into
// another namespace re-points the ClusterRoleBinding at the release's
// ServiceAccount, and the resizer bound by rbac.yaml may no longer write a
// claim's status; into the resizer's namespace with its ServiceAccount, the
// binding names the same subject and the resizer keeps its rights.
func TestChartTakeOwnershipRepointsBinding(t *testing.T) {
	ctx := context.Background()
	admin, err := cluster.WriteKubeconfig("helm-admin", cluster.AdminIdentity())
	must(t, err)
	user := framework.ServiceAccount(resizerNamespace, "csi-resizer").User
	t.Cleanup(func() {
		must(t, framework.ApplyRBAC(ctx, cluster.Admin, rbacFile(), resizerNamespace))
		waitAllowed(t, user, statusResource, true)
	})
	for _, tc := range []struct{ namespace, wantSubject string }{
		{"kube-csi-takeover", "kube-csi-takeover/csi-resizer"},
		{resizerNamespace, resizerNamespace + "/csi-resizer"},
	} {
		t.Run(tc.namespace, func(t *testing.T) {
			out, err := helm(t, "install", "takeover", chart, "--namespace", tc.namespace, "--create-namespace", "--take-ownership",
				"--set", "driver.image=registry.example.com/my-csi-driver:v1.0.0", "--kubeconfig", admin)
			if err != nil {
				t.Fatalf("helm install --take-ownership: %v\n%s", err, out)
			}
			binding, err := cluster.Admin.RbacV1().ClusterRoleBindings().Get(ctx, "csi-resizer-role", metav1.GetOptions{})
			must(t, err)
			var subjects []string
			for _, s := range binding.Subjects {
				subjects = append(subjects, s.Namespace+"/"+s.Name)
			}
			if !slices.Equal(subjects, []string{tc.wantSubject}) {
				t.Errorf("csi-resizer-role binds %v after the take-over, want %s", subjects, tc.wantSubject)
			}
			// The resizer of rbac.yaml runs in resizerNamespace.
			waitAllowed(t, user, statusResource, tc.namespace == resizerNamespace)
			if out, err := helm(t, "uninstall", "takeover", "--namespace", tc.namespace, "--kubeconfig", admin); err != nil {
				t.Errorf("helm uninstall: %v\n%s", err, out)
			}
			must(t, framework.ApplyRBAC(ctx, cluster.Admin, rbacFile(), resizerNamespace))
			waitAllowed(t, user, statusResource, true)
		})
	}
}
