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

// Package controller watches claims and carries out the decisions of both
// jobs, expansion and modification (package decide): the informers, the
// work queue, the per-claim sync, and the one attempt both share (record the
// intent, call the driver, remember, record).
package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/csi-resizer/csi-resizer/pkg/inuse"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// Resizer expands the volume behind a PV: the CSI driver, or a trivial
// stand-in for drivers that expand on the node only.
type Resizer interface {
	// Expand grows the volume to at least target. It returns the size the
	// volume has now (zero when the driver did not say) and whether kubelet
	// must finish the expansion on the node.
	Expand(ctx context.Context, pv *v1.PersistentVolume, target resource.Quantity, secrets map[string]string) (resource.Quantity, bool, error)
	// UsesSecrets reports whether Expand needs the expansion secret.
	UsesSecrets() bool
}

// Modifier changes the class of the volume behind a PV: the CSI driver's
// ControllerModifyVolume.
type Modifier interface {
	// Modify applies parameters, the mutable parameters of the target
	// VolumeAttributesClass, to pv's volume.
	Modify(ctx context.Context, pv *v1.PersistentVolume, parameters, secrets map[string]string) error
}

// Observer records the outcome of each expansion and modification attempt,
// and each write the API server did not take.
type Observer interface {
	ObserveResize(result string, d time.Duration)
	ObserveModify(result string, d time.Duration)
	// ObserveWriteFailure records a failed patch of resource, by the HTTP
	// code of the answer ("error" when there was none).
	ObserveWriteFailure(resource, code string)
}

// Config is what a Controller is built from.
type Config struct {
	// Driver is the CSI driver name from GetPluginInfo.
	Driver string
	// Resizer is nil for a driver that cannot expand volumes, only modify them.
	Resizer Resizer
	// Modifier is nil when volume modification is off: the gate is off,
	// the API server does not serve VolumeAttributesClasses, or the driver
	// lacks MODIFY_VOLUME. AttributeClasses is then nil too.
	Modifier         Modifier
	AttributeClasses cache.SharedIndexInformer
	// ExtraModifyMetadata adds the claim's and PV's names to the mutable
	// parameters (--extra-modify-metadata).
	ExtraModifyMetadata bool
	// Client patches statuses and PVs and reads Secrets.
	Client kube.Interface
	// Identity is the user the API server knows Client as, for the log of a
	// refused write; "" when unknown.
	Identity string
	Recorder record.EventRecorder
	// Claims and Volumes must not have been started: New makes them keep
	// slim projections (package slim).
	Claims  cache.SharedIndexInformer
	Volumes cache.SharedIndexInformer
	Classes cache.SharedIndexInformer
	// Pods is nil when pods are not watched (see sidecar.podWatchOf): a
	// FailedPrecondition (in use) answer is then retried with backoff;
	// given them, any driver's claim waits after it until no pod uses it.
	Pods *inuse.Tracker
	// Node is nil unless --node-deployment is on: only the claims whose
	// volumes are pinned to its node are handled (ownership.Scope). Its
	// informer must not have been started.
	Node *ownership.Watcher
	// OnlyOffline is true when the driver expands only volumes no pod uses.
	OnlyOffline bool
	// RetryStart and RetryMax bound the per-claim exponential backoff;
	// RetryMax is also the slow lane of infeasible sizes.
	RetryStart, RetryMax time.Duration
	// AnnotateFsResize and Recovery are the feature gates of the same names.
	AnnotateFsResize, Recovery bool
	Observer                   Observer
	Clock                      clock.PassiveClock
}

// Controller resizes the claims of one driver.
type Controller struct {
	Config
	classes storagelisters.StorageClassLister
	vacs    storagelisters.VolumeAttributesClassLister
	queue   workqueue.TypedRateLimitingInterface[string]
	memory  *memory
	// unpinned is done once a volume without node affinity was logged.
	unpinned sync.Once
	synced   []cache.InformerSynced
	ready    bool
	readyMu  sync.RWMutex
}

// New builds a Controller and registers its event handlers. The informers
// must not have been started yet.
func New(cfg Config) (*Controller, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	c := &Controller{
		Config:  cfg,
		classes: storagelisters.NewStorageClassLister(cfg.Classes.GetIndexer()),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](cfg.RetryStart, cfg.RetryMax),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: cfg.Driver + "-pvc"}),
		memory: &memory{},
		synced: []cache.InformerSynced{cfg.Claims.HasSynced, cfg.Volumes.HasSynced, cfg.Classes.HasSynced},
	}
	if cfg.Pods != nil {
		c.synced = append(c.synced, cfg.Pods.HasSynced)
	}
	if cfg.Modifier != nil {
		c.vacs = storagelisters.NewVolumeAttributesClassLister(cfg.AttributeClasses.GetIndexer())
		c.synced = append(c.synced, cfg.AttributeClasses.HasSynced)
	}
	if err := cfg.Claims.SetTransform(slim.TransformClaim); err != nil {
		return nil, fmt.Errorf("slim claims: %w", err)
	}
	volumes := slim.TransformVolume
	if cfg.Node != nil {
		volumes = slim.TransformVolumeKeeping(c.keepsWhole)
		c.synced = append(c.synced, cfg.Node.HasSynced)
	}
	if err := cfg.Volumes.SetTransform(volumes); err != nil {
		return nil, fmt.Errorf("slim volumes: %w", err)
	}
	if err := c.registerHandlers(); err != nil {
		return nil, fmt.Errorf("register event handlers: %w", err)
	}
	return c, nil
}

// Ready reports whether the caches have synced and workers run.
func (c *Controller) Ready() bool {
	c.readyMu.RLock()
	defer c.readyMu.RUnlock()
	return c.ready
}

// Run waits for the caches, then runs workers until ctx is done. On the way
// out it waits for the attempts in flight, whose driver calls are bounded by
// the driver timeout, not by ctx.
func (c *Controller) Run(ctx context.Context, workers int) error {
	logger := klog.FromContext(ctx)
	defer c.queue.ShutDown()
	if !cache.WaitForNamedCacheSync(c.Driver+"-pvc", ctx.Done(), c.synced...) {
		return fmt.Errorf("caches of driver %s did not sync", c.Driver)
	}
	c.readyMu.Lock()
	c.ready = true
	c.readyMu.Unlock()
	logger.V(2).Info("Starting workers", "driver", c.Driver, "workers", workers,
		"expansion", c.Resizer != nil, "modification", c.Modifier != nil)

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c.processNext(ctx) {
			}
		}()
	}
	<-ctx.Done()
	logger.Info("Shutting down: finishing the resizes in flight")
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

// processNext handles one key. It is the single place where the outcome of
// a sync becomes a requeue.
func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if ctx.Err() != nil {
		return false
	}
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "pvc", key)
	after, err := c.sync(klog.NewContext(ctx, logger), key)
	switch {
	case err != nil:
		c.retryLater(logger, key, err)
	case after > 0:
		c.queue.Forget(key)
		c.queue.AddAfter(key, after)
	default:
		c.queue.Forget(key)
	}
	return true
}

// repeatedFailures is how many failed syncs in a row of one claim make its
// error worth an error log: one or two are the everyday noise of conflicts
// and of drivers that time out.
const repeatedFailures = 3

// retryLater requeues key with backoff after its sync failed with err.
func (c *Controller) retryLater(logger klog.Logger, key string, err error) {
	if n := c.queue.NumRequeues(key) + 1; n >= repeatedFailures {
		logger.Error(err, "Claim keeps failing; retried with backoff", "failures", n)
	} else {
		logger.V(2).Info("Claim will be retried", "err", err)
	}
	c.queue.AddRateLimited(key)
}
