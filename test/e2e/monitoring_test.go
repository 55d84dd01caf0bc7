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
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The chart's alerts and dashboard (monitoring.*): rendered, checked by
// promtool, unit-tested on synthetic series, and checked against what the
// resizer binary serves (monitoring_metrics_test.go).

// promtool runs the promtool binary built from its pinned release.
func promtool(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := os.Stat(tools.Promtool); err != nil {
		t.Fatalf("promtool is missing (hack/build-tools.sh promtool builds it): %v", err)
	}
	out, err := exec.Command(tools.Promtool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// alertRule is a rule of the PrometheusRule, as spec.groups[].rules[] has it.
type alertRule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

type ruleGroup struct {
	Name  string      `json:"name"`
	Rules []alertRule `json:"rules"`
}

// renderRules renders the chart with the PrometheusRule on and the given
// values, and returns the rule object and its groups.
func renderRules(t *testing.T, sets ...string) (*unstructured.Unstructured, []ruleGroup) {
	t.Helper()
	rule := find(render(t, append([]string{"monitoring.prometheusRule.enabled=true"}, sets...)...), "PrometheusRule")
	if rule == nil {
		t.Fatal("no PrometheusRule rendered with monitoring.prometheusRule.enabled=true")
	}
	var spec struct {
		Groups []ruleGroup `json:"groups"`
	}
	data, err := json.Marshal(rule.Object["spec"])
	must(t, err)
	must(t, json.Unmarshal(data, &spec))
	return rule, spec.Groups
}

func alertNames(groups []ruleGroup) []string {
	var out []string
	for _, g := range groups {
		for _, r := range g.Rules {
			out = append(out, r.Alert)
		}
	}
	return out
}

func ruleOf(t *testing.T, groups []ruleGroup, alert string) alertRule {
	t.Helper()
	for _, g := range groups {
		for _, r := range g.Rules {
			if r.Alert == alert {
				return r
			}
		}
	}
	t.Fatalf("no alert %s in %v", alert, alertNames(groups))
	return alertRule{}
}

// writeRules writes the PrometheusRule's spec.groups as a Prometheus rule
// file (JSON is YAML) at dir/rules.yaml, the name the unit tests load.
func writeRules(t *testing.T, dir string, rule *unstructured.Unstructured) string {
	t.Helper()
	groups, ok, err := unstructured.NestedSlice(rule.Object, "spec", "groups")
	if err != nil || !ok {
		t.Fatalf("PrometheusRule without spec.groups: %v", err)
	}
	data, err := json.MarshalIndent(map[string]any{"groups": groups}, "", "  ")
	must(t, err)
	path := filepath.Join(dir, "rules.yaml")
	must(t, os.WriteFile(path, data, 0o600))
	return path
}

func TestChartMonitoringOffByDefault(t *testing.T) {
	for _, o := range render(t) {
		if o.GetKind() == "PrometheusRule" || o.GetKind() == "ConfigMap" {
			t.Errorf("the default render has %s %s; alerts and dashboard are off by default", o.GetKind(), o.GetName())
		}
	}
}

// TestChartAlertRules: the rules pass `promtool check rules`, and
// `promtool test rules` runs the unit tests of testdata, which fire and
// clear every alert on synthetic series.
func TestChartAlertRules(t *testing.T) {
	// shared are the alerts with and without leader election.
	shared := []string{"CSIResizerClaimsStuckInController", "CSIResizerClaimsStuckOnNode", "CSIResizerClaimsInfeasible", "CSIResizerDriverErrors",
		"CSIResizerAPIRequestsRefused"}
	_, withLeaderElection := renderRules(t)
	tests := []struct {
		name      string
		sets      []string
		unitTests string
		alerts    []string
		// tested are the alerts unitTests fires and clears; the others
		// are the same rules as with leader election.
		tested []string
	}{
		{name: "leader election", unitTests: "alerts_test.yaml",
			alerts: append(slices.Clone(shared), "CSIResizerNoLeader"), tested: append(slices.Clone(shared), "CSIResizerNoLeader")},
		{name: "leader election off", sets: []string{"leaderElection.enabled=false"}, unitTests: "alerts_down_test.yaml",
			alerts: append(slices.Clone(shared), "CSIResizerDown"), tested: []string{"CSIResizerDown"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rule, groups := renderRules(t, tc.sets...)
			if got := alertNames(groups); !slices.Equal(got, tc.alerts) {
				t.Fatalf("alerts %v, want %v (a new alert needs unit tests in testdata/%s)", got, tc.alerts, tc.unitTests)
			}
			for i, r := range groups[0].Rules {
				if !slices.Contains(tc.tested, r.Alert) && !reflect.DeepEqual(r, withLeaderElection[0].Rules[i]) {
					t.Errorf("rule %d (%s) differs from the one with leader election, which alerts_test.yaml tests", i, r.Alert)
				}
			}
			for _, r := range groups[0].Rules {
				for _, key := range []string{"summary", "description", "runbook_url"} {
					if r.Annotations[key] == "" {
						t.Errorf("%s has no %s", r.Alert, key)
					}
				}
				if r.Labels["severity"] == "" || r.For == "" {
					t.Errorf("%s: severity %q, for %q", r.Alert, r.Labels["severity"], r.For)
				}
			}
			dir := t.TempDir()
			rules := writeRules(t, dir, rule)
			t.Log(promtool(t, "check", "rules", rules))

			unit, err := os.ReadFile(filepath.Join("testdata", tc.unitTests))
			must(t, err)
			checkFiresAndClears(t, unit, tc.tested)
			path := filepath.Join(dir, tc.unitTests)
			must(t, os.WriteFile(path, unit, 0o600))
			t.Log(promtool(t, "test", "rules", path))
		})
	}
}

// checkFiresAndClears checks that the unit tests expect each alert to fire
// at some evaluation and, in the same test, to be gone at a later one.
func checkFiresAndClears(t *testing.T, unitTests []byte, alerts []string) {
	t.Helper()
	var file struct {
		Tests []struct {
			Name  string `json:"name"`
			Cases []struct {
				EvalTime  string           `json:"eval_time"`
				Alertname string           `json:"alertname"`
				ExpAlerts []map[string]any `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	must(t, yaml.Unmarshal(unitTests, &file))
	fires, clears := map[string]bool{}, map[string]bool{}
	for _, test := range file.Tests {
		firstFiring := map[string]time.Duration{}
		cases := test.Cases
		sort.SliceStable(cases, func(i, j int) bool { return duration(t, cases[i].EvalTime) < duration(t, cases[j].EvalTime) })
		for _, c := range cases {
			at := duration(t, c.EvalTime)
			if len(c.ExpAlerts) > 0 {
				fires[c.Alertname] = true
				if _, ok := firstFiring[c.Alertname]; !ok {
					firstFiring[c.Alertname] = at
				}
			} else if first, ok := firstFiring[c.Alertname]; ok && at > first {
				clears[c.Alertname] = true
			}
		}
	}
	for _, a := range alerts {
		if !fires[a] || !clears[a] {
			t.Errorf("the unit tests do not fire (%v) and then clear (%v) %s", fires[a], clears[a], a)
		}
	}
}

func duration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	must(t, err)
	return d
}

// TestChartAlertValues: thresholds, selector and labels come from the
// values, and the rules stay valid.
func TestChartAlertValues(t *testing.T) {
	rule, groups := renderRules(t,
		"monitoring.prometheusRule.namespace=monitoring",
		"monitoring.prometheusRule.labels.release=prometheus",
		"monitoring.prometheusRule.selector.job=my-driver-controller",
		"monitoring.prometheusRule.alertLabels.team=storage",
		"monitoring.prometheusRule.runbookUrl=",
		"monitoring.prometheusRule.stuckInController.minutes=10",
		"monitoring.prometheusRule.stuckOnNode.minutes=120",
		"monitoring.prometheusRule.stuckOnNode.for=1m",
		"monitoring.prometheusRule.infeasible.severity=info",
		"monitoring.prometheusRule.driverErrors.ratio=0.25",
		"monitoring.prometheusRule.driverErrors.window=30m",
		"monitoring.prometheusRule.apiRequestsRefused.window=20m",
		"monitoring.prometheusRule.apiRequestsRefused.for=1m",
		"monitoring.prometheusRule.noLeader.for=2m",
	)
	if rule.GetNamespace() != "monitoring" || rule.GetLabels()["release"] != "prometheus" {
		t.Errorf("PrometheusRule %s/%s with labels %v, want namespace monitoring and release=prometheus", rule.GetNamespace(), rule.GetName(), rule.GetLabels())
	}
	wants := map[string][]string{
		"CSIResizerClaimsStuckInController": {"max by (job, driver_name, operation, state)", `csi_resizer_claims{job="my-driver-controller",`, "> 600"},
		"CSIResizerClaimsStuckOnNode":       {"> 7200"},
		"CSIResizerDriverErrors":            {"[30m]", "> 0.25"},
		"CSIResizerAPIRequestsRefused":      {`sum by (job, code, method) (rate(rest_client_requests_total{job="my-driver-controller",code=~"401|403"}[20m])) > 0`},
		"CSIResizerNoLeader":                {`max by (job) (leader_election_master_status{job="my-driver-controller"})`, `absent(leader_election_master_status{job="my-driver-controller"})`},
	}
	for alert, want := range wants {
		expr := ruleOf(t, groups, alert).Expr
		for _, w := range want {
			if !strings.Contains(expr, w) {
				t.Errorf("%s: expr lacks %q:\n%s", alert, w, expr)
			}
		}
		if strings.Contains(expr, "namespace=") {
			t.Errorf("%s: the selector replaces the default one, yet:\n%s", alert, expr)
		}
	}
	for _, r := range groups[0].Rules {
		if r.Labels["team"] != "storage" {
			t.Errorf("%s: labels %v lack team=storage", r.Alert, r.Labels)
		}
		if _, ok := r.Annotations["runbook_url"]; ok {
			t.Errorf("%s: a runbook_url with runbookUrl empty", r.Alert)
		}
	}
	if got := ruleOf(t, groups, "CSIResizerClaimsStuckOnNode").For; got != "1m" {
		t.Errorf("CSIResizerClaimsStuckOnNode for %s, want 1m", got)
	}
	refused := ruleOf(t, groups, "CSIResizerAPIRequestsRefused")
	if refused.For != "1m" || !strings.Contains(refused.Annotations["description"], `csi_resizer_api_write_failures_total{job=\"my-driver-controller\",code=~\"401|403\"}[20m]`) {
		t.Errorf("CSIResizerAPIRequestsRefused: for %s, want 1m; the description's query of the refused writes lacks the selector or the window:\n%s", refused.For, refused.Annotations["description"])
	}
	if got := ruleOf(t, groups, "CSIResizerNoLeader").For; got != "2m" {
		t.Errorf("CSIResizerNoLeader for %s, want 2m", got)
	}
	if got := ruleOf(t, groups, "CSIResizerClaimsInfeasible").Labels["severity"]; got != "info" {
		t.Errorf("CSIResizerClaimsInfeasible severity %s, want info", got)
	}
	if d := ruleOf(t, groups, "CSIResizerClaimsStuckInController").Annotations["summary"]; !strings.Contains(d, "more than 10 minutes") {
		t.Errorf("summary does not give the threshold: %s", d)
	}
	if d := ruleOf(t, groups, "CSIResizerDriverErrors").Annotations["description"]; !strings.Contains(d, "over the last 30m (threshold 25%)") {
		t.Errorf("description does not give the window and threshold: %s", d)
	}
	promtool(t, "check", "rules", writeRules(t, t.TempDir(), rule))

	out, err := helm(t, "template", "rel", chart, "--set", "driver.image=registry.example.com/driver:v1",
		"--set", "monitoring.prometheusRule.enabled=true", "--set", "monitoring.prometheusRule.selector.bad-name=x")
	if err == nil || !strings.Contains(out, `"bad-name" is not a Prometheus label name`) {
		t.Errorf("want a failure naming the selector's bad label name, got %v:\n%s", err, out)
	}
}

// dashboard is the part of a Grafana dashboard the tests read.
type dashboard struct {
	UID        string `json:"uid"`
	Title      string `json:"title"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query any    `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		ID         int    `json:"id"`
		Type       string `json:"type"`
		Title      string `json:"title"`
		Datasource struct {
			UID string `json:"uid"`
		} `json:"datasource"`
		Targets []struct {
			Expr  string `json:"expr"`
			RefID string `json:"refId"`
		} `json:"targets"`
	} `json:"panels"`
}

// renderDashboard renders the dashboard ConfigMap and parses its JSON.
func renderDashboard(t *testing.T, sets ...string) (*unstructured.Unstructured, dashboard) {
	t.Helper()
	cm := find(render(t, append([]string{"monitoring.dashboard.enabled=true"}, sets...)...), "ConfigMap")
	if cm == nil {
		t.Fatal("no ConfigMap rendered with monitoring.dashboard.enabled=true")
	}
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	if len(data) != 1 || data["csi-resizer.json"] == "" {
		t.Fatalf("ConfigMap data keys %v, want csi-resizer.json", slices.Sorted(maps.Keys(data)))
	}
	var d dashboard
	if err := json.Unmarshal([]byte(data["csi-resizer.json"]), &d); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	return cm, d
}

// dashboardQueries returns the PromQL of the panels and of the template
// variables.
func dashboardQueries(d dashboard) []string {
	var out []string
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			out = append(out, q.Expr)
		}
	}
	for _, v := range d.Templating.List {
		switch q := v.Query.(type) {
		case string:
			if v.Type == "query" {
				out = append(out, q)
			}
		case map[string]any:
			if s, ok := q["query"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestChartDashboard: the ConfigMap has the sidecar's label, its JSON parses,
// every panel has a query scoped to the chosen driver or resizer, and the
// API server accepts the ConfigMap.
func TestChartDashboard(t *testing.T) {
	cm, d := renderDashboard(t)
	if got := cm.GetLabels()["grafana_dashboard"]; got != "1" {
		t.Errorf("label grafana_dashboard = %q, want \"1\"", got)
	}
	if cm.GetNamespace() != "default" {
		t.Errorf("ConfigMap namespace %s, want the release's", cm.GetNamespace())
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("dashboard uid %q, title %q", d.UID, d.Title)
	}
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	for _, v := range []string{"datasource", "driver_name", "instance"} {
		if !vars[v] {
			t.Errorf("no template variable %s", v)
		}
	}
	ids := map[int]bool{}
	panels := 0
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			continue
		}
		panels++
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		if p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: data source %q, want ${datasource}", p.Title, p.Datasource.UID)
		}
		for _, q := range p.Targets {
			if strings.TrimSpace(q.Expr) == "" || q.RefID == "" {
				t.Errorf("panel %q: a query without expr or refId", p.Title)
			}
			if !strings.Contains(q.Expr, "$driver_name") && !strings.Contains(q.Expr, "${driver_name}") && !strings.Contains(q.Expr, "$instance") {
				t.Errorf("panel %q: %s is not scoped to $driver_name or $instance", p.Title, q.Expr)
			}
		}
	}
	t.Logf("%d panels", panels)
	if err := framework.DryRunApply(context.Background(), cluster.AdminConfig, cm, "default"); err != nil {
		t.Errorf("the API server refuses the dashboard ConfigMap: %v", err)
	}

	cm, _ = renderDashboard(t, "monitoring.dashboard.namespace=monitoring", "monitoring.dashboard.labels.grafana_dashboard=null",
		"monitoring.dashboard.labels.dashboards=storage", "monitoring.dashboard.annotations.grafana_folder=Storage")
	if _, ok := cm.GetLabels()["grafana_dashboard"]; ok || cm.GetLabels()["dashboards"] != "storage" || cm.GetNamespace() != "monitoring" || cm.GetAnnotations()["grafana_folder"] != "Storage" {
		t.Errorf("ConfigMap %s/%s labels %v annotations %v, want namespace monitoring, label dashboards=storage only, folder Storage",
			cm.GetNamespace(), cm.GetName(), cm.GetLabels(), cm.GetAnnotations())
	}
}
