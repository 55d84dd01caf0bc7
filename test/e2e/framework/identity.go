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
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Identity is a user of the test cluster, authenticated by a static token.
type Identity struct {
	User   string
	Groups []string
	Token  string
}

// Admin is the cluster administrator.
func Admin() Identity {
	return Identity{User: "e2e-admin", Groups: []string{"system:masters"}, Token: randomToken()}
}

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

// writeServiceAccountKeys writes the key pair that signs ServiceAccount
// tokens.
func writeServiceAccountKeys(dir string) (pub, priv string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", err
	}
	pub, priv = filepath.Join(dir, "sa.pub"), filepath.Join(dir, "sa.key")
	if err := os.WriteFile(priv, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return "", "", err
	}
	return pub, priv, os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o600)
}

// restConfig is a client configuration of id for the server at host. The
// server's certificate is self-signed by kube-apiserver itself and the
// connection never leaves loopback, so it is not verified.
func restConfig(host string, id Identity) *rest.Config {
	return &rest.Config{
		Host:            host,
		BearerToken:     id.Token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             100,
		Burst:           200,
	}
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
