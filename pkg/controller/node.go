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

package controller

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// notOwned says why a claim of our driver that --node-deployment gives to
// no instance is left: a volume without node affinity in one log line for
// all (the first one met), a volume that other nodes may use in an event
// on the claim (refuse).
func (c *Controller) notOwned(logger klog.Logger, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, verdict ownership.Verdict, reason string) {
	switch verdict {
	case ownership.NoNodeAffinity:
		c.unpinned.Do(func() {
			logger.Info("Volumes of the driver without node affinity are no --node-deployment instance's: their claims are neither resized nor modified (said once, for the first such volume; the others at V(5))",
				"pv", pv.Name, "reason", reason)
		})
	case ownership.Refused:
		c.refuse(logger, key, pvc, pv, reason)
	}
}

// refuse warns on a claim that --node-deployment refuses: its volume's
// node affinity selects this node but may select others, so no instance
// acts on it, and reason names the term that leaves it open. The warning is
// given once per claim and reason (in memory: an instance that restarts
// warns again), and only when the claim asks for something, as its plan
// says: every instance whose node the affinity selects refuses the claim,
// and a warning on every claim of a zonal driver from every node of the
// zone would drown the ones that matter.
func (c *Controller) refuse(logger klog.Logger, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, reason string) {
	if decide.Claim(c.input(key, pvc, pv)).Next == decide.NoJob {
		return
	}
	id := idOf(key, pvc)
	if last := c.memory.refused.get(id); last != nil && *last == reason {
		return
	}
	c.memory.refused.set(id, reason)
	logger.Info("Refused: the volume's node affinity does not pin it to this node alone", "pv", pv.Name, "reason", reason)
	c.Recorder.Event(pvc, v1.EventTypeWarning, events.ReasonNodeAffinityConflict, fmt.Sprintf(
		"volume %s is neither resized nor modified by a resizer of --node-deployment: %s; one volume has one resizer, that of the one node its node affinity pins it to",
		pv.Name, reason))
}

// nodeChanged queues the claims of the volumes whose verdict the change of
// the node's labels changes, so that a volume newly pinned to the node is
// handled at once, not at the next resync. It reads the PV cache only.
func (c *Controller) nodeChanged(old, cur *ownership.Node) {
	var (
		pv       v1.PersistentVolume
		affinity v1.VolumeNodeAffinity
	)
	pv.Spec.NodeAffinity = &affinity
	for _, obj := range c.Volumes.GetIndexer().List() {
		v, ok := obj.(*slim.Volume)
		if !ok || !v.Bound || v.NodeAffinity == nil || v.CSI != nil && v.CSI.Driver != c.Driver {
			continue
		}
		affinity.Required = v.NodeAffinity
		was, _ := ownership.Match(&pv, old)
		is, _ := ownership.Match(&pv, cur)
		if was != is {
			c.queue.Add(v.ClaimNamespace + "/" + v.ClaimName)
		}
	}
}

// keepsWhole says whether the PV cache of a --node-deployment instance
// keeps the whole projection of pv: for the volumes of its driver that its
// node can use (Pinned, or Shared: refused, yet read to tell whether the
// claim asks for something) and for in-tree ones (CSI migration). The
// others keep only what ownership reads (slim.OwnershipOnly).
func (c *Controller) keepsWhole(pv *v1.PersistentVolume) bool {
	if pv.Spec.CSI == nil {
		return true
	}
	if pv.Spec.CSI.Driver != c.Driver {
		return false
	}
	r, _ := ownership.Match(pv, c.Node.Current())
	return r == ownership.Pinned || r == ownership.Shared
}

// whole returns pv, or, when the cache keeps only what ownership reads of it
// (the volume was another node's when it last changed, and the node's labels
// changed since), the PV read from the API server.
func (c *Controller) whole(ctx context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	obj, _, _ := c.Volumes.GetIndexer().GetByKey(pv.Name)
	if v, ok := obj.(*slim.Volume); !ok || !v.Partial {
		return pv, nil
	}
	live, err := c.Client.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read PV %s, of which the cache keeps what ownership reads only: %w", pv.Name, err)
	}
	klog.FromContext(ctx).V(4).Info("Read a PV the cache keeps in part: the node's labels made it this node's", "pv", pv.Name)
	return fresh(&c.memory.volumes, live.Name, live), nil
}
