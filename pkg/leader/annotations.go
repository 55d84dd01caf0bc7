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

package leader

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// setAnnotations adds the configured annotations to meta (Config.Annotations,
// such as the resizer's SettingsAnnotation), keeping the others.
func (e *Elector) setAnnotations(meta *metav1.ObjectMeta) {
	if len(e.c.Annotations) == 0 {
		return
	}
	if meta.Annotations == nil {
		meta.Annotations = make(map[string]string, len(e.c.Annotations))
	}
	for k, v := range e.c.Annotations {
		meta.Annotations[k] = v
	}
}
