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
	"context"
	"time"
)

// BounceAPIServer restarts kube-apiserver on the same port and storage as
// kubelet restarts a static pod: SIGTERM, up to grace for the graceful
// shutdown, SIGKILL if it is not over by then, and start again. It reports
// whether the old server exited within grace. A graceful shutdown takes
// --request-timeout (1m) whenever a client holds a watch open, so a short
// grace ends in SIGKILL, as a node's restart would.
func (c *Cluster) BounceAPIServer(ctx context.Context, tools Tools, grace time.Duration) (bool, error) {
	graceful := c.apiserver.Stop(grace) == nil
	args := c.apiserver.cmd.Args[1:]
	p, err := StartProcess("kube-apiserver", c.apiserver.Log, tools.APIServer, args...)
	if err != nil {
		return graceful, err
	}
	c.apiserver = p
	return graceful, c.waitReady(ctx)
}
