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

package framework

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// How a Lifetime ended.
const (
	EndedKilled     = "SIGKILL"
	EndedTerminated = "SIGTERM"
)

// Lifetime is one run of a process: which pid was alive when.
type Lifetime struct {
	Name string
	Pid  int
	Log  string
	// Start is taken just before the process started and End once it was
	// seen dead, so the process ran within [Start, End). End is zero while
	// it runs.
	Start, End time.Time
	// Ended says how it ended: EndedKilled or EndedTerminated by the test,
	// or "exit N" on its own.
	Ended string
}

// Alive reports whether the process may have been running at t.
func (l Lifetime) Alive(t time.Time) bool {
	return !t.Before(l.Start) && (l.End.IsZero() || t.Before(l.End))
}

// Supervisor keeps one process running, as kubelet keeps a container: when
// the process exits on its own it is started again after a delay, and when
// the test kills or terminates it, it is started again at once. Every run
// is recorded.
type Supervisor struct {
	name  string
	delay time.Duration
	start func(name string) (*Process, error)

	mu     sync.Mutex
	cur    *Process // nil while down
	runs   []Lifetime
	closed bool
	held   bool // no restart until Release
}

// Supervise starts a process with start, which gets a name for each run
// (name-1, name-2, ...), and keeps it running.
func Supervise(name string, restartDelay time.Duration, start func(name string) (*Process, error)) (*Supervisor, error) {
	s := &Supervisor{name: name, delay: restartDelay, start: start}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.startLocked(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Supervisor) startLocked() error {
	run := Lifetime{Name: fmt.Sprintf("%s-%d", s.name, len(s.runs)+1), Start: time.Now()}
	p, err := s.start(run.Name)
	if err != nil {
		return err
	}
	run.Pid, run.Log = p.Pid(), p.Log
	s.runs = append(s.runs, run)
	s.cur = p
	go s.watch(p, len(s.runs)-1)
	return nil
}

// watch restarts the process of run i when it exits on its own.
func (s *Supervisor) watch(p *Process, i int) {
	<-p.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs[i].End.IsZero() {
		s.runs[i].End = time.Now()
	}
	if s.runs[i].Ended != "" {
		return // the test ended it and restarts it itself
	}
	s.runs[i].Ended = fmt.Sprintf("exit %d", p.ExitCode())
	s.cur = nil
	s.restartLater()
}

// restartLater starts the process after the restart delay, and keeps
// trying while it fails to start.
func (s *Supervisor) restartLater() {
	time.AfterFunc(s.delay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.closed && !s.held && s.cur == nil && s.startLocked() != nil {
			s.restartLater()
		}
	})
}

// Kill sends SIGKILL to the running process, waits for its end and starts
// it again. It returns the run that was killed; false when no process ran
// (it is between an exit and its restart).
func (s *Supervisor) Kill() (Lifetime, bool) {
	return s.end(EndedKilled, func(p *Process) { p.Kill() }, false)
}

// Terminate sends SIGTERM to the running process, waits up to grace for its
// end (then kills it) and starts it again.
func (s *Supervisor) Terminate(grace time.Duration) (Lifetime, bool) {
	return s.end(EndedTerminated, func(p *Process) { _ = p.Stop(grace) }, false)
}

// end stops the running process with stop and, unless closing, starts it
// again.
func (s *Supervisor) end(how string, stop func(*Process), closing bool) (Lifetime, bool) {
	s.mu.Lock()
	p, i, closed := s.cur, len(s.runs)-1, s.closed
	s.closed = closed || closing
	if p == nil || closed {
		s.mu.Unlock()
		return Lifetime{}, false
	}
	s.cur = nil
	s.runs[i].Ended = how
	s.mu.Unlock()

	stop(p)

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs[i].End.IsZero() {
		s.runs[i].End = time.Now()
	}
	if !s.closed && !s.held && s.startLocked() != nil {
		s.restartLater()
	}
	return s.runs[i], true
}

// Hold keeps the process down once it ends, until Release: for instance
// to see another replica take over before this one comes back.
func (s *Supervisor) Hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = true
}

// Release ends a Hold and starts the process if it is down.
func (s *Supervisor) Release() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = false
	if s.closed || s.cur != nil {
		return nil
	}
	return s.startLocked()
}

// Current is the running process and its run; nil while it is down.
func (s *Supervisor) Current() (*Process, Lifetime) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return nil, Lifetime{}
	}
	return s.cur, s.runs[len(s.runs)-1]
}

// Lifetimes returns every run so far, in order.
func (s *Supervisor) Lifetimes() []Lifetime {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.runs)
}

// Close stops supervising and sends SIGTERM to the running process,
// killing it after grace.
func (s *Supervisor) Close(grace time.Duration) {
	s.end(EndedTerminated, func(p *Process) { _ = p.Stop(grace) }, true)
}
