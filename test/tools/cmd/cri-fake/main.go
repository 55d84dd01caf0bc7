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

// Command cri-fake serves the fake container runtime of k8s.io/cri-client
// on a unix socket, so that a real kubelet runs pods without a container
// runtime: sandboxes and containers exist only in memory, while kubelet's
// volume manager, its plugin registration and its status updates stay real.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cri-client/pkg/fake"
	"k8s.io/klog/v2"
)

// imageSize is what every fake image reports: kubelet refuses to start the
// containers of an image whose size is 0.
const imageSize = 1 << 20

func main() {
	endpoint := flag.String("endpoint", "", "Path of the unix socket to serve CRI on.")
	klog.InitFlags(nil)
	flag.Parse()
	if *endpoint == "" {
		fmt.Fprintln(os.Stderr, "cri-fake: --endpoint is required")
		os.Exit(2)
	}
	_ = os.Remove(*endpoint)
	runtime := fake.NewFakeRemoteRuntime()
	runtime.ImageService.SetFakeImageSize(imageSize)
	if err := runtime.Start("unix://" + *endpoint); err != nil {
		fmt.Fprintf(os.Stderr, "cri-fake: %v\n", err)
		os.Exit(1)
	}
	klog.InfoS("Fake CRI runtime serving", "endpoint", *endpoint)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	<-ctx.Done()
	runtime.Stop()
}
