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

// Command kubectl-csi_resizer explains a PersistentVolumeClaim's expansion
// and modification, and lists the unfinished ones; kubectl runs it as the
// plugin `kubectl csi-resizer` when it is on the PATH.
package main

import (
	"context"
	"os"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/plugin"
)

func main() {
	cmd := plugin.Command{Stdout: os.Stdout, Stderr: os.Stderr, Connect: connect}
	os.Exit(cmd.Run(context.Background(), os.Args[1:]))
}

// connect loads the kubeconfig as kubectl does, and returns a client and
// the namespace of the chosen context.
func connect(kubeconfig, kubeContext string) (kube.Interface, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubeContext})
	config, err := loader.ClientConfig()
	if err != nil {
		return nil, "", err
	}
	namespace, _, err := loader.Namespace()
	if err != nil {
		return nil, "", err
	}
	client, err := kube.NewForConfig(config)
	return client, namespace, err
}
