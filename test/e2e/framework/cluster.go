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
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/keyutil"

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
	tool := func(name string) string { return filepath.Join(dir, name) }
	t := Tools{Etcd: tool("etcd"), APIServer: tool("kube-apiserver"), CSIMock: tool("csi-mock"), Helm: tool("helm"),
		Promtool: tool("promtool"), Kubelet: tool("kubelet"), CRIFake: tool("cri-fake"), Registrar: tool("csi-registrar"),
		Resizer: resizer, TestDriver: os.Getenv("E2E_TEST_DRIVER")}
	// helm and promtool are only needed by the chart tests (make demo builds
	// neither), the node's tools only by StartNode; they fail on their own,
	// naming the tool, when it is missing.
	for _, bin := range []string{t.Etcd, t.APIServer, t.CSIMock, t.Resizer, t.TestDriver} {
		if _, err := os.Stat(bin); bin != "" && err != nil {
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
	apiserver   *Process
}

// Pids are the process ids of kube-apiserver and etcd.
func (c *Cluster) Pids() (apiserver, etcd int) { return c.apiserver.Pid(), c.etcd.Pid() }

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

// StartCluster starts etcd and kube-apiserver in dir; extra identities
// get tokens the server accepts.
func StartCluster(ctx context.Context, tools Tools, dir string, ids ...Identity) (_ *Cluster, err error) {
	c := &Cluster{Dir: dir, AuditLog: filepath.Join(dir, "audit.log"), adminID: Admin()}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	ports, err := FreePorts(3)
	if err != nil {
		return nil, err
	}
	etcdURL, peerURL := "http://127.0.0.1:"+strconv.Itoa(ports[0]), "http://127.0.0.1:"+strconv.Itoa(ports[1])
	c.etcd, err = startProcess(nil, "", "etcd", filepath.Join(dir, "etcd.log"), tools.Etcd,
		"--name=e2e", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=e2e="+peerURL, "--unsafe-no-fsync", "--log-level=warn")
	if err != nil {
		return nil, err
	}
	// The key that signs ServiceAccount tokens; kube-apiserver reads the
	// public key that verifies them off the same file.
	saKey := filepath.Join(dir, "sa.key")
	if _, _, err := keyutil.LoadOrGenerateKeyFile(saKey); err != nil {
		return nil, err
	}
	tokens, policy := filepath.Join(dir, "tokens.csv"), filepath.Join(dir, "audit-policy.yaml")
	if err := writeTokenFile(tokens, append([]Identity{c.adminID}, ids...)...); err != nil {
		return nil, err
	}
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	c.apiserver, err = startProcess(nil, "", "kube-apiserver", filepath.Join(dir, "kube-apiserver.log"), tools.APIServer,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port="+strconv.Itoa(ports[2]),
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--token-auth-file="+tokens, "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc", "--service-account-key-file="+saKey,
		"--service-account-signing-key-file="+saKey,
		"--service-cluster-ip-range=10.0.0.0/24", "--endpoint-reconciler-type=none",
		"--audit-policy-file="+policy, "--audit-log-path="+c.AuditLog, "--audit-log-mode=blocking",
		"--v=1")
	if err != nil {
		return nil, err
	}
	c.Host = "https://127.0.0.1:" + strconv.Itoa(ports[2])
	c.AdminConfig = restConfig(c.Host, c.adminID)
	if c.Admin, err = kubernetes.NewForConfig(c.AdminConfig); err != nil {
		return nil, err
	}
	return c, c.waitReady(ctx)
}

// waitReady waits until /readyz answers ok, or the server dies.
func (c *Cluster) waitReady(ctx context.Context) error {
	err := waitFor(ctx, 200*time.Millisecond, 2*time.Minute, c.apiserver, func(ctx context.Context) bool {
		body, err := c.Admin.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok"
	})
	if err != nil {
		return fmt.Errorf("wait for kube-apiserver: %w", err)
	}
	return nil
}

// BounceAPIServer restarts kube-apiserver on the same port and storage as
// kubelet restarts a static pod: SIGTERM, up to grace for the graceful
// shutdown, SIGKILL if it is not over by then, and start again. It reports
// whether the old server exited within grace. A graceful shutdown takes
// --request-timeout (1m) whenever a client holds a watch open, so a short
// grace ends in SIGKILL, as a node's restart would.
func (c *Cluster) BounceAPIServer(ctx context.Context, tools Tools, grace time.Duration) (bool, error) {
	graceful := c.apiserver.Stop(grace) == nil
	p, err := startProcess(nil, "", "kube-apiserver", c.apiserver.Log, tools.APIServer, c.apiserver.cmd.Args[1:]...)
	if err != nil {
		return graceful, err
	}
	c.apiserver = p
	return graceful, c.waitReady(ctx)
}

// AdminIdentity is the administrator's identity.
func (c *Cluster) AdminIdentity() Identity { return c.adminID }

// WriteKubeconfig writes a kubeconfig of id into the cluster's directory.
func (c *Cluster) WriteKubeconfig(name string, id Identity) (string, error) {
	path := filepath.Join(c.Dir, name+".kubeconfig")
	return path, WriteKubeconfig(path, c.Host, id)
}

// Stop stops kube-apiserver first, then etcd: the other order makes the
// server hang on shutdown.
func (c *Cluster) Stop() {
	for _, p := range []*Process{c.apiserver, c.etcd} {
		if p != nil {
			_ = p.Stop(30 * time.Second)
		}
	}
}

// Identity is a user of the test cluster, authenticated by a static token.
type Identity struct {
	User   string
	Groups []string
	Token  string
}

// Admin is the cluster administrator.
func Admin() Identity { return Identity{"e2e-admin", []string{"system:masters"}, randomToken()} }

// ServiceAccount is the identity of a ServiceAccount, as RBAC subjects of
// kind ServiceAccount match it.
func ServiceAccount(namespace, name string) Identity {
	return Identity{
		User:   "system:serviceaccount:" + namespace + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
		Token:  randomToken(),
	}
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// writeTokenFile writes kube-apiserver's --token-auth-file.
func writeTokenFile(path string, ids ...Identity) error {
	var b strings.Builder
	for i, id := range ids {
		fmt.Fprintf(&b, "%s,%s,uid-%d,\"%s\"\n", id.Token, id.User, i, strings.Join(id.Groups, ","))
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// restConfig is a client configuration of id for the server at host. The
// server's certificate is self-signed by kube-apiserver itself and the
// connection never leaves loopback, so it is not verified.
func restConfig(host string, id Identity) *rest.Config {
	return &rest.Config{Host: host, BearerToken: id.Token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 100, Burst: 200}
}

// WriteKubeconfig writes a kubeconfig file for id.
func WriteKubeconfig(path, host string, id Identity) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: host, InsecureSkipTLSVerify: true}
	cfg.AuthInfos[id.User] = &clientcmdapi.AuthInfo{Token: id.Token}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: id.User}
	cfg.CurrentContext = "e2e"
	return clientcmd.WriteToFile(*cfg, path)
}
