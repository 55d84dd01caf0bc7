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
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// labelsValue is the flag.Value of --leader-election-labels. It takes
// "key:value,key2:value2" like upstream; the flag may be repeated and the
// maps are merged, a later value for a key winning.
type labelsValue struct {
	m *map[string]string
}

// String returns the labels sorted by key in the flag's own syntax. The flag
// package calls it on a zero value, so a nil map must work.
func (v *labelsValue) String() string {
	if v == nil || v.m == nil || len(*v.m) == 0 {
		return ""
	}
	pairs := make([]string, 0, len(*v.m))
	for k, val := range *v.m {
		pairs = append(pairs, k+":"+val)
	}
	sort.Strings(pairs)
	return strings.Join(pairs, ",")
}

// Set parses one occurrence of the flag. A malformed item is an error, as
// upstream; an invalid label key or value is also an error, because the API
// server would reject the Lease and leader election would never succeed.
func (v *labelsValue) Set(value string) error {
	parsed := map[string]string{}
	for _, item := range strings.Split(value, ",") {
		kv := strings.Split(item, ":")
		if len(kv) != 2 {
			return fmt.Errorf("malformed item %q in list of labels, want key:value", item)
		}
		key, val := kv[0], kv[1]
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			return fmt.Errorf("invalid label key %q: %s", key, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(val); len(errs) > 0 {
			return fmt.Errorf("invalid value %q of label %q: %s", val, key, strings.Join(errs, "; "))
		}
		parsed[key] = val
	}
	if *v.m == nil {
		*v.m = map[string]string{}
	}
	for k, val := range parsed {
		(*v.m)[k] = val
	}
	return nil
}
