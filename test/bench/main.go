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

// Command bench measures what the resizer costs (docs/benchmarks.md):
// throughput, per-claim latency and API requests for N claims grown at once,
// the same for N claims changing VolumeAttributesClass at once, memory with
// many objects, the latency of one resize on an idle cluster, the cost of a
// /metrics scrape with many claims, and one resizer against one per node.
// It runs the real components of the end-to-end suite (etcd, kube-apiserver
// with an audit log, the CSI mock driver and the resizer binary) on this
// machine; `make bench` builds them. Progress goes to stderr, a markdown
// report to stdout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// config is what the flags select.
type config struct {
	tools       framework.Tools
	dir         string
	rbac        string
	modes       map[string]bool
	settings    []setting
	n           int
	modifyN     int
	memoryN     int
	scrapeN     []int
	pods        bool
	latencyN    int
	latencyGap  time.Duration
	creators    int
	timeout     time.Duration
	resizerArgs []string
	svg         string
	keep        bool
	// The node-deployment comparison: nodesN claims on nodes nodes (a pod
	// each with nodesPods), one resizer at nodesCentral, then one per node
	// at nodesSetting, each watched idle for nodesIdle.
	nodes, nodesN              int
	nodesPods                  bool
	nodesIdle                  time.Duration
	nodesSetting, nodesCentral setting
	// apiServer is the version of kube-apiserver, once one ran.
	apiServer string
	nproc     int
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var (
		cfg      config
		modes    = fs.String("mode", "all", "Parts to run, comma-separated: throughput, modify, memory, latency, scrape, nodes, or all; -PART leaves a part out (all,-nodes).")
		settings = fs.String("settings", "default,fast", "Resizer settings, comma-separated: default (QPS 5, burst 10, 10 workers), fast (QPS 100, burst 200, 50 workers) or QPS/BURST/WORKERS.")
		extra    = fs.String("resizer-args", "--v=2", "Extra flags of the resizer, space-separated.")
		scrapeN  = fs.String("scrape-n", "10000,50000", "Bound PVC+PV pairs in the scrape runs, comma-separated and increasing: each run adds pairs to the last one's.")
		perNode  = fs.String("nodes-setting", "default", "Nodes run: the setting of each per-node resizer (default, fast or QPS/BURST/WORKERS).")
		central  = fs.String("nodes-central-setting", "", "Nodes run: the setting of the one resizer of the whole cluster; empty: -nodes-setting's QPS and burst times -nodes, 50 workers.")
	)
	fs.IntVar(&cfg.n, "n", 500, "Claims grown at once in the throughput runs.")
	fs.IntVar(&cfg.modifyN, "modify-n", 500, "Claims changing VolumeAttributesClass at once in the modify runs.")
	fs.IntVar(&cfg.memoryN, "memory-n", 10000, "Bound PVC+PV pairs (and pods) in the memory run.")
	fs.BoolVar(&cfg.pods, "pods", true, "Memory run: also create one running pod per claim and measure with --handle-volume-inuse-error, for a driver that expands online (no pod watch) and one that expands offline only.")
	fs.IntVar(&cfg.latencyN, "latency-n", 20, "Sequential resizes in the latency runs.")
	fs.DurationVar(&cfg.latencyGap, "latency-gap", time.Second, "Pause before each sequential resize, so that the token bucket is full again.")
	fs.IntVar(&cfg.creators, "creators", 8, "Goroutines creating and growing objects.")
	fs.DurationVar(&cfg.timeout, "timeout", 20*time.Minute, "Longest wait for the claims of one throughput run to finish.")
	fs.StringVar(&cfg.rbac, "rbac", filepath.Join("deploy", "kubernetes", "rbac.yaml"), "RBAC of the resizer.")
	fs.StringVar(&cfg.svg, "svg", filepath.Join("docs", "benchmarks-throughput.svg"), "Where to write the throughput plot; empty: nowhere.")
	fs.IntVar(&cfg.nodes, "nodes", 50, "Nodes run: simulated nodes, and resizers in the per-node scenario.")
	fs.IntVar(&cfg.nodesN, "nodes-n", 10000, "Nodes run: bound PVC+PV pairs, spread over the nodes, each PV pinned to its node.")
	fs.BoolVar(&cfg.nodesPods, "nodes-pods", false, "Nodes run: also create one running pod per claim, on its claim's node (about a minute more to create).")
	fs.DurationVar(&cfg.nodesIdle, "nodes-idle", time.Minute, "Nodes run: how long each scenario is watched idle after its resize wave.")
	fs.BoolVar(&cfg.keep, "keep", false, "Keep the logs (kube-apiserver, audit log, resizer, driver) after a successful run.")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	var err error
	if cfg.modes, err = parseModes(*modes); err != nil {
		return nil, err
	}
	for _, s := range strings.Split(*settings, ",") {
		st, err := parseSetting(strings.TrimSpace(s))
		if err != nil {
			return nil, err
		}
		cfg.settings = append(cfg.settings, st)
	}
	cfg.resizerArgs = strings.Fields(*extra)
	if cfg.nodesSetting, err = parseSetting(*perNode); err != nil {
		return nil, fmt.Errorf("-nodes-setting: %w", err)
	}
	cfg.nodesCentral = centralSetting(cfg.nodesSetting, cfg.nodes)
	if *central != "" {
		if cfg.nodesCentral, err = parseSetting(*central); err != nil {
			return nil, fmt.Errorf("-nodes-central-setting: %w", err)
		}
	}
	if cfg.scrapeN, err = parseCounts(*scrapeN); err != nil {
		return nil, err
	}
	if cfg.n < 1 || cfg.modifyN < 1 || cfg.memoryN < 1 || cfg.latencyN < 1 || cfg.creators < 1 || cfg.nodesN < 1 || cfg.nodes < 2 {
		return nil, fmt.Errorf("-n, -modify-n, -memory-n, -latency-n, -nodes-n and -creators must be positive, -nodes at least 2")
	}
	return &cfg, nil
}

func run(ctx context.Context, cfg *config) (err error) {
	if cfg.tools, err = framework.ToolsFromEnv(); err != nil {
		return err
	}
	if cfg.dir, err = os.MkdirTemp("", "csi-resizer-bench-"); err != nil {
		return err
	}
	defer func() {
		if err != nil || cfg.keep {
			say("logs kept in %s", cfg.dir)
			return
		}
		_ = os.RemoveAll(cfg.dir)
	}()
	res := &results{Machine: describeMachine(), Command: "make bench BENCH_ARGS='" + strings.Join(os.Args[1:], " ") + "'"}
	if len(os.Args) == 1 {
		res.Command = "make bench"
	}
	cfg.nproc = res.Machine.NProc
	if res.Binaries, err = measureBinaries(cfg.tools.Resizer); err != nil {
		return err
	}
	start := time.Now()
	if res.Throughput, err = perSetting(ctx, cfg, "throughput", runThroughput); err != nil {
		return err
	}
	if res.Modify, err = perSetting(ctx, cfg, "modify", runModify); err != nil {
		return err
	}
	if res.Latency, err = perSetting(ctx, cfg, "latency", runLatency); err != nil {
		return err
	}
	if cfg.modes["memory"] {
		if res.Memory, err = runMemory(ctx, cfg); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	if cfg.modes["scrape"] {
		if res.Scrape, err = runScrape(ctx, cfg); err != nil {
			return fmt.Errorf("scrape: %w", err)
		}
	}
	if cfg.modes["nodes"] {
		if res.Nodes, err = runNodes(ctx, cfg); err != nil {
			return fmt.Errorf("nodes: %w", err)
		}
	}
	res.Machine.APIServer = cfg.apiServer
	say("done in %s", since(start))
	if cfg.svg != "" && len(res.Throughput) > 0 {
		f, err := os.Create(cfg.svg)
		if err != nil {
			return err
		}
		if err := errors.Join(throughputChart(res.Throughput).writeSVG(f), f.Close()); err != nil {
			return err
		}
		say("plot written to %s", cfg.svg)
	}
	res.writeMarkdown(os.Stdout)
	return nil
}

// perSetting runs mode at each setting, if mode is selected.
func perSetting[T any](ctx context.Context, cfg *config, mode string, run func(context.Context, *config, setting) (T, error)) ([]T, error) {
	var out []T
	for _, s := range cfg.settings {
		if !cfg.modes[mode] {
			break
		}
		t, err := run(ctx, cfg, s)
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w", mode, s, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// allModes are the parts of the benchmark, in the order they run.
var allModes = []string{"throughput", "modify", "memory", "latency", "scrape", "nodes"}

// parseModes reads -mode: parts or "all", comma-separated, in any order;
// "-PART" leaves a part out of those named before it or after it.
func parseModes(s string) (map[string]bool, error) {
	modes, without := map[string]bool{}, map[string]bool{}
	for _, m := range strings.Split(s, ",") {
		m = strings.TrimSpace(m)
		name, out := strings.CutPrefix(m, "-")
		switch {
		case name == "all" && !out:
			for _, all := range allModes {
				modes[all] = true
			}
		case slices.Contains(allModes, name):
			if out {
				without[name] = true
			} else {
				modes[name] = true
			}
		default:
			return nil, fmt.Errorf("-mode: unknown part %q", m)
		}
	}
	for m := range without {
		delete(modes, m)
	}
	if len(modes) == 0 {
		return nil, fmt.Errorf("-mode %q leaves nothing to run", s)
	}
	return modes, nil
}

// centralSetting is the budget of nodes resizers at perNode in one: their
// QPS and burst summed, with 50 workers.
func centralSetting(perNode setting, nodes int) setting {
	qps, burst := perNode.QPS*nodes, perNode.Burst*nodes
	return setting{Name: fmt.Sprintf("%d/%d/50", qps, burst), QPS: qps, Burst: burst, Workers: 50}
}

// parseCounts reads -scrape-n: positive counts, comma-separated, each above
// the last, since each run adds pairs to the previous one's.
func parseCounts(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-scrape-n: %q is not a positive number", part)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("-scrape-n: %d is not above %d: each run adds claims to the last", n, out[len(out)-1])
		}
		out = append(out, n)
	}
	return out, nil
}
