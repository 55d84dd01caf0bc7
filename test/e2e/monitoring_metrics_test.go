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
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/component-base/metrics/testutil"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// sample is one line of the Prometheus text format.
type sample struct {
	name   string
	labels map[string]string
	value  string
}

var (
	// labelPair is name="value" in a sample or a selector's matcher.
	labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"`)
	// vectorSelector is metric{matchers}, once Grafana's variables are
	// replaced (so that no brace is left inside the matchers).
	vectorSelector = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^{}]*)\}`)
	// metricName finds the names of the families the chart uses, also where
	// no braces follow (label_values(csi_resizer_claims, driver_name)).
	metricName = regexp.MustCompile(`\b(?:csi|workqueue|rest_client|leader_election|process|go)_[a-zA-Z0-9_:]*`)
	quoted     = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	// literalAlternatives is a regex matcher's value made of plain words
	// (state=~"node_pending|node_in_progress"): each word must be served.
	literalAlternatives = regexp.MustCompile(`^[a-zA-Z0-9_]+(\|[a-zA-Z0-9_]+)*$`)
)

// targetLabels are the labels Prometheus gives a target (the Prometheus
// Operator's, for the pods of a ServiceMonitor or PodMonitor); the binary
// does not serve them.
var targetLabels = map[string]bool{"namespace": true, "container": true, "pod": true, "instance": true, "job": true, "service": true, "endpoint": true}

// parseMetrics reads text with framework.ParseMetrics: one sample a
// series, a histogram's under name_bucket, name_sum and name_count.
func parseMetrics(text string) ([]sample, error) {
	metrics, err := framework.ParseMetrics(text)
	if err != nil {
		return nil, err
	}
	var out []sample
	for name, series := range metrics {
		for _, s := range series {
			labels := map[string]string{}
			for k, v := range s.Metric {
				if k != testutil.MetricNameLabel {
					labels[string(k)] = string(v)
				}
			}
			out = append(out, sample{name: name, labels: labels, value: s.Value.String()})
		}
	}
	return out, nil
}

// matcher is one label matcher of a selector.
type matcher struct{ name, op, value string }

func (m matcher) matches(v string) bool {
	switch m.op {
	case "=":
		return v == m.value
	case "!=":
		return v != m.value
	}
	re := regexp.MustCompile("^(?:" + m.value + ")$")
	return re.MatchString(v) == (m.op == "=~")
}

// selector is a vector selector of a query, without the matchers on
// target labels.
type selector struct {
	text     string
	metric   string
	matchers []matcher
}

func (s selector) matches(samples []sample) bool {
	for _, x := range samples {
		if x.name != s.metric {
			continue
		}
		ok := true
		for _, m := range s.matchers {
			ok = ok && m.matches(x.labels[m.name])
		}
		if ok {
			return true
		}
	}
	return false
}

// grafanaVars replaces the dashboard's variables with values of the run.
func grafanaVars(query, driver string) string {
	return strings.NewReplacer("${driver_name}", driver, "$driver_name", driver, "$__rate_interval", "5m").Replace(query)
}

// selectors returns the vector selectors of query, each regex matcher made
// of plain words also split into one selector per word.
func selectors(query string) []selector {
	var out []selector
	for _, m := range vectorSelector.FindAllStringSubmatch(query, -1) {
		s := selector{text: m[0], metric: m[1]}
		var words []matcher
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			if targetLabels[p[1]] {
				continue
			}
			mt := matcher{name: p[1], op: p[2], value: p[3]}
			s.matchers = append(s.matchers, mt)
			if mt.op == "=~" && literalAlternatives.MatchString(mt.value) && strings.Contains(mt.value, "|") {
				words = append(words, mt)
			}
		}
		out = append(out, s)
		for _, w := range words {
			for _, word := range strings.Split(w.value, "|") {
				one := selector{text: fmt.Sprintf("%s{%s=%q} of %s", s.metric, w.name, word, m[0]), metric: s.metric}
				for _, mt := range s.matchers {
					if mt == w {
						mt = matcher{name: w.name, op: "=", value: word}
					}
					one.matchers = append(one.matchers, mt)
				}
				out = append(out, one)
			}
		}
	}
	return out
}

// usedNames returns the metric names of queries.
func usedNames(queries []string) []string {
	var out []string
	for _, q := range queries {
		for _, m := range vectorSelector.FindAllStringSubmatch(q, -1) {
			out = append(out, m[1])
		}
		out = append(out, metricName.FindAllString(quoted.ReplaceAllString(q, `""`), -1)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func scrape(ctx context.Context, port int) (string, error) {
	code, body, err := framework.HTTPGet(ctx, "127.0.0.1:"+strconv.Itoa(port), "/metrics")
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("GET /metrics: answered %d", code)
	}
	return string(body), err
}

// TestMonitoringMetricsServed runs two replicas of the resizer binary with
// leader election through an expansion, a refused modification and a
// modification, scrapes both, and checks that every metric the chart's
// alerts and dashboard use is served, and that every selector of theirs
// (less the labels Prometheus adds to targets) matches a served series;
// and that the standby serves no claims by state. The selectors of refused
// requests are TestAPIRefusalIsLoud's.
func TestMonitoringMetricsServed(t *testing.T) {
	var queries []string
	for _, sets := range [][]string{nil, {"leaderElection.enabled=false"}} {
		_, groups := renderRules(t, sets...)
		for _, g := range groups {
			for _, r := range g.Rules {
				queries = append(queries, r.Expr)
			}
		}
	}
	_, d := renderDashboard(t)
	queries = append(queries, dashboardQueries(d)...)

	ports, err := framework.FreePorts(2)
	must(t, err)
	leaderArgs := []string{"--leader-election", "--leader-election-namespace=" + resizerNamespace}
	e := newEnv(t, modifiable, append(leaderArgs, "--http-endpoint=127.0.0.1:"+strconv.Itoa(ports[0]))...)
	first := replica{e.resizer, ports[0]}
	args := slices.Clone(e.args)
	args[len(args)-1] = "--http-endpoint=127.0.0.1:" + strconv.Itoa(ports[1])
	p, err := framework.StartResizer(tools, e.dir, "resizer-2", e.kubeconfig, e.driver.Socket, args...)
	must(t, err)
	second := replica{p, ports[1]}
	t.Cleanup(func() { _ = second.Stop(30 * time.Second) })
	leader, other := e.waitLeader(first, second)
	leaderPort, standbyPort := leader.port, other.port

	driver := e.driver.Name
	e.volume("data", "1Gi")
	e.grow("data", "2Gi")
	e.waitClaim("data", "the resize", finished("2Gi"))
	gold := e.attributesClass("gold", map[string]string{"iops": "64000"})
	silver := e.attributesClass("silver", map[string]string{"iops": "3000"})
	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Code: "InvalidArgument", Message: "iops 64000 is above the limit"}))
	e.setClass("data", gold)
	e.waitModifyStatus("data", gold, v1.PersistentVolumeClaimModifyVolumeInfeasible)
	infeasible := fmt.Sprintf(`csi_resizer_claims{driver_name=%q,operation="modify",state="infeasible"} 1`, driver)
	e.waitFor("the leader to report the infeasible claim", func() bool {
		body, err := scrape(e.ctx, leaderPort)
		return err == nil && strings.Contains(body, infeasible)
	})
	e.setClass("data", silver)
	e.waitClaim("data", "the modification", modified(silver))

	for i, q := range queries {
		queries[i] = grafanaVars(q, driver)
	}
	names := usedNames(queries)
	var sels []selector
	for _, q := range queries {
		sels = append(sels, selectors(q)...)
	}
	t.Logf("%d metrics and %d selectors used by the alerts and the dashboard: %s", len(names), len(sels), strings.Join(names, ", "))

	// Histograms get their series when an attempt ends, which may be just
	// after the status write the test waited for: poll.
	var missing []string
	var leaderText, standbyText string
	err = wait.PollUntilContextTimeout(e.ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err1 := scrape(ctx, leaderPort)
		s, err2 := scrape(ctx, standbyPort)
		if err1 != nil || err2 != nil {
			missing = []string{fmt.Sprint("scrape: ", err1, err2)}
			return false, nil
		}
		leaderText, standbyText = l, s
		leaderSamples, err1 := parseMetrics(leaderText)
		standbySamples, err2 := parseMetrics(standbyText)
		if err1 != nil || err2 != nil {
			missing = []string{fmt.Sprint("parse /metrics: ", err1, err2)}
			return false, nil
		}
		served := append(leaderSamples, standbySamples...)
		missing = nil
		for _, n := range names {
			if !slices.ContainsFunc(served, func(s sample) bool { return s.name == n }) {
				missing = append(missing, "metric "+n)
			}
		}
		for _, s := range sels {
			if !s.matches(served) && !servedOnlyOnRefusal(s) {
				missing = append(missing, "selector "+s.text)
			}
		}
		return len(missing) == 0, nil
	})
	if err != nil {
		for name, text := range map[string]string{"leader": leaderText, "standby": standbyText} {
			must(t, os.WriteFile(filepath.Join(e.dir, name+".metrics"), []byte(text), 0o600))
		}
		t.Errorf("the resizer does not serve what the alerts and the dashboard use (its /metrics are in %s):\n  %s", e.dir, strings.Join(missing, "\n  "))
	}

	standby, err := parseMetrics(standbyText)
	must(t, err)
	leaderServed, err := parseMetrics(leaderText)
	must(t, err)
	for _, s := range standby {
		if strings.HasPrefix(s.name, "csi_resizer_claim") {
			t.Errorf("the standby serves %s %v: alerts would count its claims twice", s.name, s.labels)
			break
		}
	}
	leading := map[string]string{}
	for port, samples := range map[string][]sample{"leader": leaderServed, "standby": standby} {
		for _, s := range samples {
			if s.name == "leader_election_master_status" {
				leading[port] = s.value
			}
		}
		// The dashboard's $instance are the replicas with the work queue.
		if !slices.ContainsFunc(samples, func(s sample) bool { return s.name == "workqueue_depth" && s.labels["name"] == driver+"-pvc" }) {
			t.Errorf("the %s serves no workqueue_depth{name=%q}", port, driver+"-pvc")
		}
	}
	if leading["leader"] != "1" || leading["standby"] != "0" {
		t.Errorf("leader_election_master_status: leader %q, standby %q; want 1 and 0", leading["leader"], leading["standby"])
	}
}
