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

// Command csi-registrar registers a CSI driver with kubelet, as
// node-driver-registrar does (which is not on the Go module proxy): it asks
// the driver its name with GetPluginInfo, then serves kubelet's plugin
// registration API on <registration-dir>/<name>-reg.sock, naming the
// driver's socket as the endpoint kubelet calls.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/klog/v2"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

func main() {
	var (
		csiAddress = flag.String("csi-address", "", "Path of the driver's unix socket, as kubelet reaches it.")
		regDir     = flag.String("registration-dir", "", "Kubelet's plugin registration directory (<root-dir>/plugins_registry).")
	)
	klog.InitFlags(nil)
	flag.Parse()
	if *csiAddress == "" || *regDir == "" {
		fmt.Fprintln(os.Stderr, "csi-registrar: --csi-address and --registration-dir are required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, *csiAddress, *regDir); err != nil {
		fmt.Fprintf(os.Stderr, "csi-registrar: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, csiAddress, regDir string) error {
	name, err := driverName(ctx, csiAddress)
	if err != nil {
		return err
	}
	socket := filepath.Join(regDir, name+"-reg.sock")
	_ = os.Remove(socket)
	l, err := net.Listen("unix", socket)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", socket, err)
	}
	defer os.Remove(socket)
	srv := grpc.NewServer()
	registerapi.RegisterRegistrationServer(srv, &registrar{name: name, endpoint: csiAddress})
	go func() {
		<-ctx.Done()
		srv.Stop()
	}()
	klog.InfoS("Registering CSI driver with kubelet", "driver", name, "socket", socket, "endpoint", csiAddress)
	return srv.Serve(l)
}

// driverName asks the driver its name, retrying while it starts.
func driverName(ctx context.Context, csiAddress string) (string, error) {
	conn, err := grpc.NewClient("unix://"+csiAddress, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "", err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		info, err := csi.NewIdentityClient(conn).GetPluginInfo(ctx, &csi.GetPluginInfoRequest{})
		if err == nil {
			return info.GetName(), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("GetPluginInfo on %s: %w", csiAddress, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// registrar answers kubelet's plugin watcher.
type registrar struct {
	registerapi.UnimplementedRegistrationServer
	name, endpoint string
}

func (r *registrar) GetInfo(context.Context, *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	return &registerapi.PluginInfo{
		Type:              registerapi.CSIPlugin,
		Name:              r.name,
		Endpoint:          r.endpoint,
		SupportedVersions: []string{"1.0.0"},
	}, nil
}

func (r *registrar) NotifyRegistrationStatus(_ context.Context, s *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	if !s.PluginRegistered {
		klog.ErrorS(nil, "Kubelet refused the driver's registration", "driver", r.name, "error", s.Error)
	} else {
		klog.InfoS("Kubelet registered the driver", "driver", r.name)
	}
	return &registerapi.RegistrationStatusResponse{}, nil
}
