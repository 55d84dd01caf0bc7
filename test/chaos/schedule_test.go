//go:build chaos

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

package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// action is one thing the schedule does.
type action string

const (
	killResizer      action = "SIGKILL resizer"
	killDriver       action = "SIGKILL CSI driver"
	restartAPIServer action = "restart kube-apiserver"
	growClaims       action = "grow claims"
	createClass      action = "create class"
	// The node share's faults.
	killNodeResizer action = "SIGKILL node resizer"
	killNodeDriver  action = "SIGKILL node CSI driver"
	restartKubelet  action = "SIGKILL kubelet"
)

// apiServerGrace is how long kube-apiserver gets to stop after SIGTERM.
// It stops taking requests at once but waits a minute for open watches to
// close; kubelet would kill it after the pod's grace period (30s by
// default), and a shorter one keeps the run short.
const apiServerGrace = 5 * time.Second

// fault reports whether the action is a fault (and not user work).
func (a action) fault() bool { return a != growClaims && a != createClass }

// step is an action at a time from the start of the window.
type step struct {
	at   time.Duration
	what action
	// busy makes a SIGKILL wait (a while) for a call in the driver.
	busy bool
}

// happened is a step as it was carried out.
type happened struct {
	what       action
	start, end time.Time
	detail     string
}

// schedule says how many of each fault a run gets.
type schedule struct {
	window        time.Duration
	resizerKills  int
	driverKills   int
	apiRestarts   int
	waves         int // growth waves in the window, after the first one at its start
	driverMaxDown time.Duration
	// lateClassAt is when the late class is created, after the second
	// wave asked for it; 0 for none.
	lateClassAt time.Duration
	// The node share's faults: SIGKILLs of its resizer and its driver, and
	// of kubelet (started again at once).
	nodeResizerKills, nodeDriverKills, kubeletRestarts int
	// nodeRefusals is how many of the node share's claims each wave but the
	// first and the last has the node refuse; recoveryRaises how many of
	// them, once recovered, the last wave raises (see recovery).
	nodeRefusals, recoveryRaises int
}

// plan spreads the faults at random moments of the window. Growth waves
// come at regular moments; the last wave comes just before the end of the
// window and the last SIGKILL of the resizer at its very end, while it has
// a call in the driver, so that the drain after the last fault has work
// to do.
func (s schedule) plan(rnd *rand.Rand) []step {
	at := func(from, to float64) time.Duration {
		return time.Duration((from + rnd.Float64()*(to-from)) * float64(s.window))
	}
	steps := []step{{at: 0, what: growClaims}}
	for w := 1; w < s.waves; w++ {
		steps = append(steps, step{at: time.Duration(w) * s.window / time.Duration(s.waves), what: growClaims})
	}
	steps = append(steps, step{at: s.window - 3*time.Second, what: growClaims}, step{at: s.window, what: killResizer, busy: true})
	for range s.resizerKills - 1 {
		steps = append(steps, step{at: at(0.02, 0.95), what: killResizer})
	}
	for range s.driverKills {
		steps = append(steps, step{at: at(0.05, 0.9), what: killDriver})
	}
	for range s.apiRestarts {
		steps = append(steps, step{at: at(0.2, 0.7), what: restartAPIServer})
	}
	if s.lateClassAt > 0 {
		steps = append(steps, step{at: s.lateClassAt, what: createClass})
	}
	slices.SortStableFunc(steps, func(a, b step) int { return int(a.at - b.at) })
	return steps
}

// planNode spreads the node share's faults at random moments of the
// window. They are drawn from a source of their own, so that a seed gives
// the other steps it gave before the node share existed.
func (s schedule) planNode(rnd *rand.Rand) []step {
	at := func(from, to float64) time.Duration {
		return time.Duration((from + rnd.Float64()*(to-from)) * float64(s.window))
	}
	var steps []step
	for range s.nodeResizerKills {
		steps = append(steps, step{at: at(0.02, 0.95), what: killNodeResizer})
	}
	for range s.nodeDriverKills {
		steps = append(steps, step{at: at(0.05, 0.9), what: killNodeDriver})
	}
	for range s.kubeletRestarts {
		steps = append(steps, step{at: at(0.05, 0.95), what: restartKubelet})
	}
	slices.SortStableFunc(steps, func(a, b step) int { return int(a.at - b.at) })
	return steps
}

// mergeSteps merges plans into one, in order of time (the steps of the
// first plan first at the same moment).
func mergeSteps(plans ...[]step) []step {
	var all []step
	for _, p := range plans {
		all = append(all, p...)
	}
	slices.SortStableFunc(all, func(a, b step) int { return int(a.at - b.at) })
	return all
}

// chaosRun is what the schedule acts on.
type chaosRun struct {
	e       *env
	rnd     *rand.Rand
	driver  *framework.Driver
	resizer *framework.Supervisor
	claims  *claims
	sched   schedule

	// classRnd draws the class changes, apart from rnd, so that a seed
	// gives the same growths and faults as before classes changed.
	classRnd *rand.Rand
	// classy are the claims that change class.
	classy []claim
	// wave counts the waves done.
	wave int
	// lateCreated is when the late class was created; zero before.
	lateCreated time.Time
	// lateAsked and latePending are the claims that had asked for the late
	// class when it was created, and those recorded Pending.
	lateAsked, latePending int
	// share is the node share: its claims, driver, resizer and kubelet.
	share *nodeShare
}

// execute carries out the steps in order, each at its moment from start
// (or as soon as the previous step is over).
func (r *chaosRun) execute(ctx context.Context, start time.Time, steps []step) ([]happened, error) {
	var done []happened
	for _, s := range steps {
		timer := time.NewTimer(time.Until(start.Add(s.at)))
		select {
		case <-ctx.Done():
			timer.Stop()
			return done, ctx.Err()
		case <-timer.C:
		}
		h := happened{what: s.what, start: time.Now()}
		detail, err := r.do(ctx, s)
		h.end, h.detail = time.Now(), detail
		done = append(done, h)
		if err != nil {
			return done, fmt.Errorf("%s at %s: %w", s.what, since(start, h.start), err)
		}
	}
	return done, nil
}

func (r *chaosRun) do(ctx context.Context, s step) (string, error) {
	switch s.what {
	case killResizer:
		return r.killResizer(ctx, r.resizer, r.driver, s.busy)
	case killNodeResizer:
		return r.killResizer(ctx, r.share.resizer, r.share.driver, s.busy)
	case killDriver:
		return r.killDriver(ctx, r.driver, r.rnd, nil)
	case killNodeDriver:
		// A restarted driver reads its whole script again, answers already
		// taken included: a NodeExpandVolume would fail twice.
		return r.killDriver(ctx, r.share.driver, r.share.rnd, func() error { return r.share.driver.Script() })
	case restartKubelet:
		return r.share.restartKubelet(ctx)
	case restartAPIServer:
		begin := time.Now()
		graceful, err := r.e.cluster.BounceAPIServer(ctx, r.e.tools, apiServerGrace)
		if err != nil {
			return "", err
		}
		how := "exited within"
		if !graceful {
			how = "killed after"
		}
		return fmt.Sprintf("SIGTERM, %s %s, ready again after %s", how, apiServerGrace, time.Since(begin).Round(time.Millisecond)), nil
	case growClaims:
		return r.growWave(ctx)
	case createClass:
		return r.createLate(ctx)
	}
	return "", fmt.Errorf("unknown action %q", s.what)
}

// growWave grows about half the claims (all in the first wave), changes
// the class of some, scripts the node share's NodeExpandVolume answers,
// and plays the wave's part of its recovery (see recovery).
func (r *chaosRun) growWave(ctx context.Context) (string, error) {
	picked := r.pick()
	changes, classed, _ := r.classChanges(picked)
	plan := r.share.planRecovery(r.wave, r.sched, picked, r.claims)
	changes = holdBack(changes, plan.held, plan.raises)
	armed, err := r.share.armFaults(picked, plan)
	if err != nil {
		return "", err
	}
	if err := r.claims.apply(ctx, r.e.cluster.Admin, changes); err != nil {
		return "", err
	}
	grown, both := grownBy(changes)
	detail := fmt.Sprintf("%d claims +1Gi (%d of the node share)", len(grown), r.share.count(grown))
	if classed > 0 {
		detail += fmt.Sprintf(", %d change class (%d of them grown too)", classed, both)
	}
	if armed != "" {
		detail += "; NodeExpandVolume scripted: " + armed
	}
	again, pause := r.secondThoughts(changes)
	if len(again) > 0 {
		timer := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			timer.Stop()
			return "", ctx.Err()
		case <-timer.C:
		}
		if err := r.claims.apply(ctx, r.e.cluster.Admin, again); err != nil {
			return "", err
		}
		detail += fmt.Sprintf(", %d of them another class %s later", len(again), pause)
	}
	if d := plan.describe(); d != "" {
		detail += "; " + d
	}
	r.wave++
	return detail, nil
}

// grownBy lists the claims that changes grow by 1Gi, and counts those of
// them that change class too (a held claim may change class alone).
func grownBy(changes []change) (grown []claim, both int) {
	for _, ch := range changes {
		if !ch.grow {
			continue
		}
		grown = append(grown, ch.claim)
		if ch.class != "" {
			both++
		}
	}
	return grown, both
}

// pick chooses the claims of a wave: all of them in the first wave, then
// about half, at random.
func (r *chaosRun) pick() []claim {
	if r.claims.growths() == 0 {
		return r.claims.list
	}
	var picked []claim
	for _, c := range r.claims.list {
		if r.rnd.IntN(2) == 0 {
			picked = append(picked, c)
		}
	}
	return picked
}
