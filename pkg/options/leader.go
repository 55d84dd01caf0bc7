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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"time"
)

var unsafeLeaseChars = regexp.MustCompile(`[^a-zA-Z0-9-]`)

// LeaseName is the name of the leader election Lease of driver's resizer:
// upstream's, "external-resizer-" and the driver name with every character
// but letters, digits and "-" replaced by "-".
func LeaseName(driver string) string {
	return "external-resizer-" + unsafeLeaseChars.ReplaceAllString(driver, "-")
}

// Identity is a replica's identity in the Lease: its host name (the pod
// name in a cluster), "_" and random, so that two replicas on one host
// never share it.
func Identity(host, random string) string {
	return host + "_" + random
}

// HostOf is the host name (the pod name) in an Identity; "" when id is not
// one.
func HostOf(id string) string {
	i := strings.LastIndex(id, "_")
	if i <= 0 {
		return ""
	}
	return id[:i]
}

// maxLeaseName is the longest name of a Lease, a DNS subdomain.
const maxLeaseName = 253

// NodeLeaseName is the name of the Lease that the --node-deployment
// instance of driver's resizer on node keeps renewed while it runs (no
// election: one instance per node): LeaseName, "-" and the node's name. A
// name that would be too long is cut, and ends in a hash of the whole so
// that two nodes never share one.
func NodeLeaseName(driver, node string) string {
	name := LeaseName(driver) + "-" + node
	if len(name) <= maxLeaseName {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	hash := hex.EncodeToString(sum[:])[:16]
	return strings.TrimRight(name[:maxLeaseName-len(hash)-1], ".-") + "-" + hash
}

// NodeLeaseLabel labels every node Lease (NodeLeaseName) with
// NodeLeaseValue of its driver, so that kubectl csi-resizer explain and list
// find a driver's --node-deployment instances with one list.
const NodeLeaseLabel = "csi-resizer.io/node-deployment-of"

// NodeLeaseValue is the value of NodeLeaseLabel for driver: its name with
// every character but letters, digits, "-", "_" and "." replaced by "-",
// cut to the 63 characters of a label value, which begins and ends with a
// letter or digit.
func NodeLeaseValue(driver string) string {
	v := unsafeLabelChars.ReplaceAllString(driver, "-")
	if len(v) > 63 {
		v = v[:63]
	}
	return strings.Trim(v, "-_.")
}

var unsafeLabelChars = regexp.MustCompile(`[^a-zA-Z0-9._-]`)

// PodNamespaceEnv names the environment variable that gives the pod's
// namespace to LeaseNamespace, as in csi-lib-utils' leader election.
const PodNamespaceEnv = "POD_NAMESPACE"

// serviceAccountNamespace is the file a pod's service account mounts with
// its namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// LeaseNamespace is the namespace of the leader election Lease and of the
// node Leases, resolved as upstream (csi-lib-utils' leader election) does:
// --leader-election-namespace, else $POD_NAMESPACE, else the namespace of
// the pod's service account, else "default".
func (o *Options) LeaseNamespace() string {
	return leaseNamespace(o.LeaderElectionNamespace, os.Getenv, serviceAccountNamespace)
}

// leaseNamespace is LeaseNamespace with the environment and the service
// account's file given.
func leaseNamespace(flagValue string, getenv func(string) string, file string) string {
	if flagValue != "" {
		return flagValue
	}
	if ns := getenv(PodNamespaceEnv); ns != "" {
		return ns
	}
	if b, err := os.ReadFile(file); err == nil {
		if ns := strings.TrimSpace(string(b)); ns != "" {
			return ns
		}
	}
	return "default"
}

// SettingsAnnotation is the annotation on the Leases a resizer holds (its
// leader election Lease, or with --node-deployment its node Lease) that
// publishes the settings kubectl csi-resizer explain reasons with, as JSON
// (Published), so that explain reads them where it finds the resizer.
const SettingsAnnotation = "csi-resizer.io/settings"

// Published are the resizer's settings that explain reasons with, as the
// resizer resolved them from its command line (the timeouts after
// --timeout's override); each is the flag or feature gate of its name, and
// OfflineOnly is true when the driver expands only volumes no pod uses;
// the retry intervals also pace the slow lane of infeasible sizes and classes.
// Their JSON is SettingsAnnotation's value; fields may be added, never
// renamed.
type Published struct {
	RetryIntervalStart     Duration `json:"retryIntervalStart"`
	RetryIntervalMax       Duration `json:"retryIntervalMax"`
	Recovery               bool     `json:"recoverVolumeExpansionFailure"`
	HandleVolumeInUseError bool     `json:"handleVolumeInUseError"`
	ResizeTimeout          Duration `json:"resizeTimeout"`
	ModifyTimeout          Duration `json:"modifyTimeout"`
	NodeDeployment         bool     `json:"nodeDeployment"`
	OfflineOnly            bool     `json:"offlineOnly"`
	AnnotateFsResize       bool     `json:"annotateFsResize"`
}

// Annotations are the Lease annotations that publish s.
func (s Published) Annotations() map[string]string {
	b, err := json.Marshal(s)
	if err != nil {
		return nil // cannot happen: every field marshals
	}
	return map[string]string{SettingsAnnotation: string(b)}
}

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
