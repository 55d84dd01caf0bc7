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

package leader

import (
	"context"
	"fmt"
	"maps"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// tryAcquireOrRenew makes this replica the holder of the Lease, or renews
// it, with at most one read and one write; false when another replica holds
// a valid Lease or a call failed.
func (e *Elector) tryAcquireOrRenew(ctx context.Context) bool {
	logger := klog.FromContext(ctx)
	now := e.clock.Now()

	// The leader writes the version it knows, without reading it first: the
	// resourceVersion makes the write fail if anyone else wrote since.
	if last, valid := e.known(now); last != nil && holderOf(last) == e.c.Identity && valid {
		err := e.write(ctx, last, now)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false // stopping, or the call outlived the renew deadline
		}
		logger.V(2).Info("Could not renew the Lease as last seen, reading it again", "err", err)
		e.c.Metrics.SlowPath()
	}

	lease, err := e.c.Leases.Get(ctx, e.c.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return e.create(ctx, now)
	}
	if err != nil {
		logger.Error(err, "Could not read the Lease")
		return false
	}
	e.observe(lease)
	_, valid := e.known(now)
	if holder := holderOf(lease); holder != "" && holder != e.c.Identity && valid {
		logger.V(4).Info("The Lease is held by another replica", "holder", holder)
		return false
	}
	if err := e.write(ctx, lease, now); err != nil {
		logger.Error(err, "Could not write the Lease")
		return false
	}
	return true
}

// write updates lease (the version last seen) with this replica as the
// holder and renewTime now.
func (e *Elector) write(ctx context.Context, lease *coordinationv1.Lease, now time.Time) error {
	next := lease.DeepCopy()
	e.hold(next, now, ptr.Deref(lease.Spec.LeaseTransitions, 0)+1)
	written, err := e.c.Leases.Update(ctx, next, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	e.wrote(written)
	return nil
}

// create creates the absent Lease with this replica as its first holder.
func (e *Elector) create(ctx context.Context, now time.Time) bool {
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: e.c.Namespace, Name: e.c.Name}}
	e.hold(lease, now, 0)
	created, err := e.c.Leases.Create(ctx, lease, metav1.CreateOptions{})
	if err != nil {
		klog.FromContext(ctx).Error(err, "Could not create the Lease")
		return false
	}
	e.wrote(created)
	return true
}

// hold makes this replica the holder of lease, renewed at now, with the
// configured labels and annotations. The holder keeps its acquireTime; a
// new holder sets it, and transitions as the count of transitions.
func (e *Elector) hold(lease *coordinationv1.Lease, now time.Time, transitions int32) {
	e.setMeta(&lease.ObjectMeta)
	at := metav1.NewMicroTime(now)
	spec := &lease.Spec
	if holderOf(lease) != e.c.Identity {
		spec.AcquireTime = &at
		spec.LeaseTransitions = ptr.To(transitions)
	}
	spec.HolderIdentity = ptr.To(e.c.Identity)
	spec.LeaseDurationSeconds = ptr.To(int32(e.c.LeaseDuration / time.Second))
	spec.RenewTime = &at
}

// release writes the Lease without a holder and with a duration of one
// second, so that a standby takes it at its next attempt. A conflict (a
// renewal cancelled after the API server applied it) is read again once.
func (e *Elector) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.c.RenewDeadline)
	defer cancel()
	logger := klog.FromContext(ctx)
	lease, _ := e.known(e.clock.Now())
	for range 2 {
		if lease == nil || holderOf(lease) != e.c.Identity {
			return
		}
		next := lease.DeepCopy()
		at := metav1.NewMicroTime(e.clock.Now())
		next.Spec.HolderIdentity = ptr.To("")
		next.Spec.LeaseDurationSeconds = ptr.To[int32](1)
		next.Spec.AcquireTime, next.Spec.RenewTime = &at, &at
		written, err := e.c.Leases.Update(ctx, next, metav1.UpdateOptions{})
		if err == nil {
			e.wrote(written)
			logger.Info("Released the leader election Lease")
			e.reportLeader()
			return
		}
		if !apierrors.IsConflict(err) {
			logger.Error(err, "Could not release the Lease")
			return
		}
		if lease, err = e.c.Leases.Get(ctx, e.c.Name, metav1.GetOptions{}); err != nil {
			logger.Error(err, "Could not read the Lease to release it")
			return
		}
		e.observe(lease)
	}
}

// observe records a version of the Lease read from the API server; the
// clock of expiry restarts only when its spec changed.
func (e *Elector) observe(lease *coordinationv1.Lease) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lease == nil || !equality.Semantic.DeepEqual(e.lease.Spec, lease.Spec) {
		e.seen = e.clock.Now()
	}
	e.lease = lease
}

// wrote records the version of the Lease this replica just wrote.
func (e *Elector) wrote(lease *coordinationv1.Lease) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lease, e.seen = lease, e.clock.Now()
}

// known returns the version of the Lease last seen, and whether its holder
// still holds it at now: less than the holder's leaseDurationSeconds since
// this replica saw it change.
func (e *Elector) known(now time.Time) (*coordinationv1.Lease, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lease == nil {
		return nil, false
	}
	d := time.Duration(ptr.Deref(e.lease.Spec.LeaseDurationSeconds, 0)) * time.Second
	return e.lease, e.seen.Add(d).After(now)
}

// holder is the holder of the Lease last seen, "" for none.
func (e *Elector) holder() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.holderLocked()
}

func (e *Elector) holderLocked() string {
	if e.lease == nil {
		return ""
	}
	return holderOf(e.lease)
}

func holderOf(l *coordinationv1.Lease) string {
	return ptr.Deref(l.Spec.HolderIdentity, "")
}

// renew renews the Lease every RetryPeriod until ctx ends (true) or the
// Lease is lost (false).
func (e *Elector) renew(ctx context.Context) bool {
	logger := klog.FromContext(ctx)
	for e.sleep(ctx, e.c.RetryPeriod) {
		if err := e.renewBefore(ctx, e.clock.Now().Add(e.c.RenewDeadline)); err != nil {
			if ctx.Err() != nil {
				return true
			}
			e.c.Metrics.Leading(false)
			logger.Info("Stopped leading", "reason", err.Error())
			return false
		}
		logger.V(5).Info("Renewed the Lease")
	}
	return true
}

// renewBefore tries to renew the Lease every RetryPeriod until it succeeds,
// the deadline passes or another replica is seen holding it.
func (e *Elector) renewBefore(ctx context.Context, deadline time.Time) error {
	for {
		// A call that hangs ends at the deadline too.
		callCtx, cancel := context.WithTimeout(ctx, deadline.Sub(e.clock.Now()))
		ok := e.tryAcquireOrRenew(callCtx)
		cancel()
		e.reportLeader()
		switch holder := e.holder(); {
		case ok:
			return nil
		case holder != e.c.Identity:
			return fmt.Errorf("the Lease is held by %q", holder)
		case ctx.Err() != nil:
			return ctx.Err()
		}
		wait := min(e.c.RetryPeriod, deadline.Sub(e.clock.Now()))
		if wait <= 0 || !e.sleep(ctx, wait) || !e.clock.Now().Before(deadline) {
			return fmt.Errorf("could not renew the Lease within %v", e.c.RenewDeadline)
		}
	}
}

// setMeta adds the configured labels and annotations (such as the
// resizer's SettingsAnnotation) to meta, keeping the others.
func (e *Elector) setMeta(meta *metav1.ObjectMeta) {
	for _, set := range []struct {
		to   *map[string]string
		from map[string]string
	}{{&meta.Labels, e.c.Labels}, {&meta.Annotations, e.c.Annotations}} {
		if len(set.from) == 0 {
			continue
		}
		if *set.to == nil {
			*set.to = make(map[string]string, len(set.from))
		}
		maps.Copy(*set.to, set.from)
	}
}
