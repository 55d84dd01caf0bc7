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

package options

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/csi-resizer/csi-resizer/pkg/leader"
)

// validate checks the values that the flag types alone cannot. All problems
// are reported at once, joined on one line.
func (o *Options) validate() error {
	var errs []string
	add := func(flagName string, value any, problem string) {
		errs = append(errs, fmt.Sprintf("invalid value %v for flag --%s: %s", value, flagName, problem))
	}

	if o.Workers < 1 {
		add("workers", o.Workers, "must be at least 1")
	}
	if o.Timeout <= 0 {
		add("timeout", o.Timeout, "must be greater than zero")
	}
	// The values given, before --timeout overrides them: a bad value is a
	// mistake even when it would not be used.
	if o.ResizeTimeout <= 0 {
		add("resize-timeout", o.ResizeTimeout, "must be greater than zero")
	}
	if o.ModifyTimeout <= 0 {
		add("modify-timeout", o.ModifyTimeout, "must be greater than zero")
	}
	if o.ResyncPeriod < 0 {
		add("resync-period", o.ResyncPeriod, "must not be negative (0 disables resync)")
	}
	if o.RetryIntervalStart <= 0 {
		add("retry-interval-start", o.RetryIntervalStart, "must be greater than zero")
	} else if o.RetryIntervalStart > o.RetryIntervalMax {
		add("retry-interval-start", o.RetryIntervalStart,
			fmt.Sprintf("must not be greater than --retry-interval-max (%v)", o.RetryIntervalMax))
	}
	if !(o.KubeAPIQPS > 0) || math.IsInf(o.KubeAPIQPS, 1) {
		add("kube-api-qps", o.KubeAPIQPS, "must be a finite number greater than zero")
	}
	if o.KubeAPIBurst < 1 {
		add("kube-api-burst", o.KubeAPIBurst, "must be at least 1")
	}
	if o.HTTPEndpoint != "" && o.MetricsAddress != "" {
		errs = append(errs, "only one of --metrics-address and --http-endpoint can be set")
	}
	if !strings.HasPrefix(o.MetricsPath, "/") {
		add("metrics-path", fmt.Sprintf("%q", o.MetricsPath), `must start with "/"`)
	}
	if o.NodeDeployment {
		errs = append(errs, o.validateNodeDeployment()...)
	}
	if o.LeaderElection {
		errs = append(errs, validateLeaderElection(o.LeaseDuration, o.RenewDeadline, o.RetryPeriod)...)
	}

	if len(errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(errs, "; "))
}

// validateLeaderElection applies the rules of leader.New (client-go's)
// at start-up, so that a bad combination fails with a flag error instead of
// after the driver connection and informers are set up.
func validateLeaderElection(lease, renew, retry time.Duration) []string {
	var errs []string
	if retry <= 0 {
		errs = append(errs, fmt.Sprintf("invalid value %v for flag --leader-election-retry-period: must be greater than zero", retry))
	}
	if lease <= renew {
		errs = append(errs, fmt.Sprintf("--leader-election-lease-duration (%v) must be greater than --leader-election-renew-deadline (%v)", lease, renew))
	}
	if minRenew := time.Duration(leader.JitterFactor * float64(retry)); renew <= minRenew {
		errs = append(errs, fmt.Sprintf("--leader-election-renew-deadline (%v) must be greater than %v times --leader-election-retry-period (%v), i.e. greater than %v",
			renew, leader.JitterFactor, retry, minRenew))
	}
	return errs
}
