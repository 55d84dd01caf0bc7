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

package plugin

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// access is one call explain makes: a verb on a resource, in a namespace
// ("" for a cluster-scoped resource, or a list across all namespaces).
type access struct {
	verb, resource, namespace, name string
}

// String reads as the permission the call needs: `get
// persistentvolumeclaims in namespace "ns"`.
func (a access) String() string {
	scope := " (cluster-wide)"
	if a.namespace != "" {
		scope = fmt.Sprintf(" in namespace %q", a.namespace)
	}
	return a.verb + " " + a.resource + scope
}

// what names the object or list read: `persistentvolumeclaim "ns/data"`.
func (a access) what() string {
	switch {
	case a.name == "":
		return a.resource + scopeOf(a.namespace)
	case a.namespace == "":
		return fmt.Sprintf("%s %q", a.resource, a.name)
	}
	return fmt.Sprintf("%s %q", a.resource, a.namespace+"/"+a.name)
}

func scopeOf(namespace string) string {
	if namespace == "" {
		return " of all namespaces"
	}
	return fmt.Sprintf(" of namespace %q", namespace)
}

// ReadError is a read that failed: what was read, and why, in words that
// name the missing permission when the API server refused it.
type ReadError struct {
	access
	Err error
}

// Error says what could not be read and why.
func (e *ReadError) Error() string {
	switch {
	case apierrors.IsNotFound(e.Err):
		return e.what() + " not found"
	case apierrors.IsForbidden(e.Err):
		return fmt.Sprintf("cannot read %s: permission missing: %s (the API server said: %v)", e.what(), e.access, e.Err)
	case apierrors.IsUnauthorized(e.Err):
		return fmt.Sprintf("cannot read %s: the API server does not accept your credentials (%v)", e.what(), e.Err)
	}
	return fmt.Sprintf("read %s: %v", e.what(), e.Err)
}

// Unwrap returns the API server's error.
func (e *ReadError) Unwrap() error { return e.Err }

// Forbidden reports whether the API server refused the read for lack of a
// permission.
func (e *ReadError) Forbidden() bool { return apierrors.IsForbidden(e.Err) }

// readError wraps err, when not nil, as a ReadError of a.
func readError(a access, err error) error {
	if err == nil {
		return nil
	}
	return &ReadError{access: a, Err: err}
}

// listError is a failed list of resource in namespace ("" for all
// namespaces, or a cluster-scoped resource).
func listError(resource, namespace string, err error) error {
	return readError(access{verbList, resource, namespace, ""}, err)
}

// isNotFound reports whether err says the object does not exist.
func isNotFound(err error) bool {
	var re *ReadError
	return errors.As(err, &re) && apierrors.IsNotFound(re.Err)
}
