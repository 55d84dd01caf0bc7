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
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/csi-resizer/csi-resizer/hack/image/ociread"
)

// Tools are the binaries the suite runs.
type Tools struct {
	Etcd, APIServer, CSIMock, Helm, Promtool, Resizer string
	// ResizerUser is who the resizer runs as: the user of the image of
	// E2E_IMAGE (make image's archive), as in a driver's pod; nil without
	// E2E_IMAGE (the test's own user).
	ResizerUser *syscall.Credential
	// Kubelet, CRIFake and Registrar make a node (see StartNode).
	Kubelet, CRIFake, Registrar string
	// TestDriver is the csi-test-driver binary (test/cmd/csi-test-driver),
	// named by E2E_TEST_DRIVER, for DriverOptions.Scripted; "" without it.
	TestDriver string
}

// ToolsFromEnv finds the binaries: E2E_TOOLS_DIR (built by
// hack/build-tools.sh) and E2E_RESIZER (built by `make build`).
func ToolsFromEnv() (Tools, error) {
	dir := os.Getenv("E2E_TOOLS_DIR")
	resizer := os.Getenv("E2E_RESIZER")
	if dir == "" || resizer == "" {
		return Tools{}, fmt.Errorf("E2E_TOOLS_DIR and E2E_RESIZER must name the tools and the resizer binary; run `make test-e2e`")
	}
	t := Tools{
		Etcd:       filepath.Join(dir, "etcd"),
		APIServer:  filepath.Join(dir, "kube-apiserver"),
		CSIMock:    filepath.Join(dir, "csi-mock"),
		Helm:       filepath.Join(dir, "helm"),
		Promtool:   filepath.Join(dir, "promtool"),
		Kubelet:    filepath.Join(dir, "kubelet"),
		CRIFake:    filepath.Join(dir, "cri-fake"),
		Registrar:  filepath.Join(dir, "csi-registrar"),
		Resizer:    resizer,
		TestDriver: os.Getenv("E2E_TEST_DRIVER"),
	}
	// helm and promtool are only needed by the chart tests (make demo builds
	// neither), the node's tools only by StartNode; they fail on their own,
	// naming the tool, when it is missing.
	for _, bin := range []string{t.Etcd, t.APIServer, t.CSIMock, t.Resizer, t.TestDriver} {
		if bin == "" {
			continue
		}
		if _, err := os.Stat(bin); err != nil {
			return Tools{}, fmt.Errorf("missing binary: %w", err)
		}
	}
	if archive := os.Getenv("E2E_IMAGE"); archive != "" {
		id, err := ociread.ImageIdentity(archive, "")
		if err != nil {
			return Tools{}, fmt.Errorf("E2E_IMAGE: %w", err)
		}
		t.ResizerUser = &syscall.Credential{Uid: id.UID, Gid: id.GID, Groups: id.Groups}
	}
	return t, nil
}

// Cluster is a control plane of one etcd and one kube-apiserver on
// loopback, with RBAC, token authentication and an audit log.
type Cluster struct {
	Dir      string
	Host     string
	AuditLog string
	// Admin is a client of the administrator.
	Admin       kubernetes.Interface
	AdminConfig *rest.Config
	adminID     Identity
	etcd        *Process
	etcdURL     string
	apiserver   *Process
	tokens      []Identity
}

// Pids are the process ids of kube-apiserver and etcd.
func (c *Cluster) Pids() (apiserver, etcd int) { return c.apiserver.Pid(), c.etcd.Pid() }

// StartCluster starts etcd and kube-apiserver in dir; extra identities
// get tokens the server accepts.
func StartCluster(ctx context.Context, tools Tools, dir string, ids ...Identity) (*Cluster, error) {
	c := &Cluster{Dir: dir, AuditLog: filepath.Join(dir, "audit.log"), adminID: Admin()}
	c.tokens = append([]Identity{c.adminID}, ids...)
	if err := c.startEtcd(tools); err != nil {
		return nil, err
	}
	if err := c.startAPIServer(ctx, tools); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) startEtcd(tools Tools) error {
	ports, err := FreePorts(2) // distinct, unlike two calls of FreePort
	if err != nil {
		return err
	}
	clientURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	c.etcd, err = StartProcess("etcd", filepath.Join(c.Dir, "etcd.log"), tools.Etcd,
		"--name=e2e", "--data-dir="+filepath.Join(c.Dir, "etcd"),
		"--listen-client-urls="+clientURL, "--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=e2e="+peerURL, "--unsafe-no-fsync", "--log-level=warn")
	if err != nil {
		return err
	}
	c.etcdURL = clientURL
	return nil
}

// auditPolicy records every request at Metadata level: who did what to
// which object, never the bodies (which may hold Secrets); but the writes
// of claims with their bodies and the object answered, each version of a
// claim that a write made (the chaos run reads the claims' history there,
// which a watch may miss).
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: RequestResponse
  verbs: ["create", "update", "patch"]
  resources:
  - group: ""
    resources: ["persistentvolumeclaims", "persistentvolumeclaims/status"]
- level: Metadata
`

func (c *Cluster) startAPIServer(ctx context.Context, tools Tools) error {
	port, err := FreePort()
	if err != nil {
		return err
	}
	pub, priv, err := writeServiceAccountKeys(c.Dir)
	if err != nil {
		return err
	}
	tokens := filepath.Join(c.Dir, "tokens.csv")
	if err := writeTokenFile(tokens, c.tokens...); err != nil {
		return err
	}
	policy := filepath.Join(c.Dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return err
	}
	c.apiserver, err = StartProcess("kube-apiserver", filepath.Join(c.Dir, "kube-apiserver.log"), tools.APIServer,
		"--etcd-servers="+c.etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		"--cert-dir="+filepath.Join(c.Dir, "certs"),
		"--token-auth-file="+tokens, "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc", "--service-account-key-file="+pub,
		"--service-account-signing-key-file="+priv,
		"--service-cluster-ip-range=10.0.0.0/24", "--endpoint-reconciler-type=none",
		"--audit-policy-file="+policy, "--audit-log-path="+c.AuditLog, "--audit-log-mode=blocking",
		"--v=1")
	if err != nil {
		return err
	}
	c.Host = "https://127.0.0.1:" + strconv.Itoa(port)
	c.AdminConfig = restConfig(c.Host, c.adminID)
	if c.Admin, err = kubernetes.NewForConfig(c.AdminConfig); err != nil {
		return err
	}
	return c.waitReady(ctx)
}

// waitReady waits until /readyz answers ok, or the server dies.
func (c *Cluster) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if c.apiserver.Exited() {
			return false, fmt.Errorf("kube-apiserver exited; see %s", c.apiserver.Log)
		}
		body, err := c.Admin.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", nil
	})
	if err != nil {
		return fmt.Errorf("wait for kube-apiserver: %w", err)
	}
	return nil
}

// AdminIdentity is the administrator's identity.
func (c *Cluster) AdminIdentity() Identity { return c.adminID }

// Config is a client configuration of id.
func (c *Cluster) Config(id Identity) *rest.Config {
	return restConfig(c.Host, id)
}

// WriteKubeconfig writes a kubeconfig of id into the cluster's directory.
func (c *Cluster) WriteKubeconfig(name string, id Identity) (string, error) {
	path := filepath.Join(c.Dir, name+".kubeconfig")
	return path, WriteKubeconfig(path, c.Host, id)
}

// Stop stops kube-apiserver first, then etcd: the other order makes the
// server hang on shutdown.
func (c *Cluster) Stop() {
	if c.apiserver != nil {
		_ = c.apiserver.Stop(30 * time.Second)
	}
	if c.etcd != nil {
		_ = c.etcd.Stop(30 * time.Second)
	}
}
