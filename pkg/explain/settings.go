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

package explain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

// Duration is a time.Duration that reads in JSON as Go writes it: "5m0s".
type Duration time.Duration

// MarshalJSON writes d as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a string that time.ParseDuration accepts.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Settings are the resizer's settings that explain reasons with. The API
// does not hold them: they are read from the flags of the pod that holds
// the Lease when explain may get it, else they are the defaults.
type Settings struct {
	// RetryIntervalStart and RetryIntervalMax are --retry-interval-start
	// and --retry-interval-max: the first and the longest backoff, and
	// the slow lane of infeasible sizes and classes.
	RetryIntervalStart Duration `json:"retryIntervalStart"`
	RetryIntervalMax   Duration `json:"retryIntervalMax"`
	// Recovery is the feature gate RecoverVolumeExpansionFailure: a
	// lowered request is followed after a failure.
	Recovery bool `json:"recoverVolumeExpansionFailure"`
	// From says where they come from: "defaults", or "pod NS/NAME".
	From string `json:"from"`
}

// defaultSettings are the resizer's defaults, as packages options and
// features define them.
func defaultSettings() Settings {
	return Settings{
		RetryIntervalStart: Duration(resizeroptions.DefaultRetryIntervalStart),
		RetryIntervalMax:   Duration(resizeroptions.DefaultRetryIntervalMax),
		Recovery:           resizeroptions.Specs()[resizeroptions.RecoverVolumeExpansionFailure].Default,
		From:               "defaults",
	}
}

func (s Settings) retryMax() time.Duration   { return time.Duration(s.RetryIntervalMax) }
func (s Settings) retryStart() time.Duration { return time.Duration(s.RetryIntervalStart) }

// settingsOf reads the settings from the flags of the resizer's container
// in pod; the defaults when pod is nil or runs no resizer. A flag whose
// value does not parse keeps its default, as the resizer would not have
// started with it.
func settingsOf(pod *v1.Pod) Settings {
	s := defaultSettings()
	if pod == nil {
		return s
	}
	args, ok := resizerArgs(pod)
	if !ok {
		return s
	}
	s.From = fmt.Sprintf("pod %s/%s", pod.Namespace, pod.Name)
	for name, value := range flagValues(args) {
		switch name {
		case resizeroptions.FlagRetryIntervalStart:
			if d, err := time.ParseDuration(value); err == nil {
				s.RetryIntervalStart = Duration(d)
			}
		case resizeroptions.FlagRetryIntervalMax:
			if d, err := time.ParseDuration(value); err == nil {
				s.RetryIntervalMax = Duration(d)
			}
		case resizeroptions.FlagFeatureGates:
			if on, ok := gate(value, string(resizeroptions.RecoverVolumeExpansionFailure)); ok {
				s.Recovery = on
			}
		}
	}
	return s
}

// resizerOnlyFlags are flags the resizer takes and no other CSI sidecar of
// a driver's controller pod does.
var resizerOnlyFlags = []string{resizeroptions.FlagHandleVolumeInUseError, resizeroptions.FlagResizeTimeout, resizeroptions.FlagModifyTimeout, resizeroptions.FlagExtraModifyMetadata}

// resizerArgs are the command and arguments of pod's resizer container. Every
// CSI sidecar of a driver's controller pod (provisioner, attacher,
// snapshotter, liveness probe, resizer) takes --csi-address, and several take
// --retry-interval-* and --feature-gates, so the resizer is told by what only
// it has: a flag only the resizer takes, else "resizer" in the container's
// name or image, else being the pod's only sidecar. false when nothing tells
// one container apart.
func resizerArgs(pod *v1.Pod) ([]string, bool) {
	type sidecar struct {
		c     v1.Container
		args  []string
		flags map[string]string
	}
	var sidecars []sidecar
	for _, c := range pod.Spec.Containers {
		args := append(append([]string{}, c.Command...), c.Args...)
		if flags := flagValues(args); flags[resizeroptions.FlagCSIAddress] != "" {
			sidecars = append(sidecars, sidecar{c: c, args: args, flags: flags})
		}
	}
	tells := []func(sidecar) bool{
		func(s sidecar) bool {
			return slices.ContainsFunc(resizerOnlyFlags, func(f string) bool { _, ok := s.flags[f]; return ok })
		},
		func(s sidecar) bool {
			return strings.Contains(s.c.Name, "resizer") || strings.Contains(s.c.Image, "resizer")
		},
		func(sidecar) bool { return len(sidecars) == 1 },
	}
	for _, tell := range tells {
		var found []sidecar
		for _, s := range sidecars {
			if tell(s) {
				found = append(found, s)
			}
		}
		if len(found) == 1 {
			return found[0].args, true
		}
	}
	return nil, false
}

// flagValues reads "--name=value", "-name=value" and "--name value" as Go's
// flag package does; the last of a flag given twice wins.
func flagValues(args []string) map[string]string {
	out := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			continue
		}
		name := strings.TrimLeft(a, "-")
		if k, v, ok := strings.Cut(name, "="); ok {
			out[k] = v
			continue
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out[name] = args[i+1]
			i++
			continue
		}
		out[name] = "true"
	}
	return out
}

// gate reads feature from a --feature-gates value "A=true,B=false".
func gate(value, feature string) (on, ok bool) {
	for _, pair := range strings.Split(value, ",") {
		k, v, found := strings.Cut(strings.TrimSpace(pair), "=")
		if !found || k != feature {
			continue
		}
		b, err := strconv.ParseBool(v)
		return b, err == nil
	}
	return false, false
}
