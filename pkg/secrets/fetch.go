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

package secrets

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// Fetch reads the data of the Secret ref through the API. It is the only read a resize makes
// outside the informer caches: the resizer does not watch Secrets, so that it needs only "get"
// on them and holds no Secret in memory between resizes.
//
// Errors name the Secret but never carry its data; a missing Secret gives an error for which
// apierrors.IsNotFound still holds. The data is returned as strings, the form CSI requests take.
func Fetch(ctx context.Context, client kube.Interface, ref Ref) (map[string]string, error) {
	if ref.Namespace == "" || ref.Name == "" {
		return nil, fmt.Errorf("secret %q for %s: both namespace and name are required", ref, ref.use())
	}
	// client-go logs response bodies at V(8) and above, and this response is the Secret: the
	// read gets a logger capped below that level (see quietContext).
	quiet, capped := quietContext(ctx)
	if !capped && klog.FromContext(ctx).V(bodyLogLevel).Enabled() {
		// Fail closed rather than print the Secret: the operator asked for body logging and
		// switched off the contextual logging that lets this one call opt out of it.
		return nil, fmt.Errorf("secret %q for %s not read: at --v=%d and above client-go logs the Secret's data unless the ContextualLogging feature gate is on", ref, ref.use(), bodyLogLevel)
	}
	secret, err := client.CoreV1().Secrets(ref.Namespace).Get(quiet, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("secret %q for %s not found: %w", ref, ref.use(), err)
	}
	if err != nil {
		return nil, fmt.Errorf("get secret %q for %s: %w", ref, ref.use(), err)
	}
	data := make(map[string]string, len(secret.Data))
	for k, v := range secret.Data {
		data[k] = string(v)
	}
	klog.FromContext(ctx).V(4).Info("Read secret for "+ref.use(), "secret", klog.KRef(ref.Namespace, ref.Name), "keys", len(data))
	return data, nil
}
