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

// Package secrets finds and reads the Secret that goes with ControllerExpandVolume.
//
// The PV's controllerExpandSecretRef wins; when a PV lacks it (provisioned before the field
// existed, or by a tool that never sets it) the StorageClass parameters are resolved with the
// external-provisioner's templating rules, so that the resizer sends the Secret the provisioner
// would have recorded.
package secrets

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Ref names a Secret. It holds no secret data, so it is safe to log and to put in errors.
type Ref struct {
	Namespace, Name string
	// Use says what the Secret is for in errors and logs: "volume
	// modification", or "" for volume expansion.
	Use string
}

// use is what the Secret is for, as errors and logs say it.
func (r Ref) use() string {
	if r.Use == "" {
		return "volume expansion"
	}
	return r.Use
}

// String returns "namespace/name", the form used in logs, events and errors.
func (r Ref) String() string { return r.Namespace + "/" + r.Name }

// StorageClass parameter keys, spelled as the external-provisioner defines them, so that a class
// written for the provisioner configures the resizer too.
const (
	// NameParam is the StorageClass parameter holding the Secret name template.
	NameParam = "csi.storage.k8s.io/controller-expand-secret-name"
	// NamespaceParam is the StorageClass parameter holding the Secret namespace template.
	NamespaceParam = "csi.storage.k8s.io/controller-expand-secret-namespace"
)

// RefFor returns the Secret to use when expanding pv, which is bound to pvc.
//
// pv.Spec.CSI.ControllerExpandSecretRef is used when set, because it is what the provisioner
// recorded for this very volume. Otherwise sc, the class named by the PV, is consulted: its
// NameParam and NamespaceParam are resolved with the external-provisioner templating rules and
// the result must be a valid namespace and Secret name. sc may be nil (no class, or the class was
// deleted): then no Secret is configured. RefFor returns nil and no error when no Secret is
// configured, and an error that names the template and its resolved value when the
// configuration is wrong, so that a resize never runs with a guessed Secret.
func RefFor(pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim, sc *storagev1.StorageClass) (*Ref, error) {
	if pv == nil {
		return nil, errors.New("find expansion secret: no PersistentVolume given")
	}
	if pv.Spec.CSI != nil && pv.Spec.CSI.ControllerExpandSecretRef != nil {
		r := pv.Spec.CSI.ControllerExpandSecretRef
		if r.Namespace == "" || r.Name == "" {
			return nil, fmt.Errorf("PersistentVolume %q: controllerExpandSecretRef needs both a namespace and a name, got namespace %q and name %q",
				pv.Name, r.Namespace, r.Name)
		}
		return &Ref{Namespace: r.Namespace, Name: r.Name}, nil
	}
	if sc == nil {
		return nil, nil
	}

	nameTmpl, hasName := sc.Parameters[NameParam]
	nsTmpl, hasNamespace := sc.Parameters[NamespaceParam]
	if hasName != hasNamespace {
		set, unset := NameParam, NamespaceParam
		if hasNamespace {
			set, unset = unset, set
		}
		return nil, fmt.Errorf("StorageClass %q sets %s but not %s: set both or neither", sc.Name, set, unset)
	}
	// Both empty counts as not configured, as in the external-provisioner.
	if nameTmpl == "" && nsTmpl == "" {
		return nil, nil
	}

	ns, err := resolve(nsTmpl, pv, pvc, true)
	if err != nil {
		return nil, fmt.Errorf("StorageClass %q parameter %s: %w", sc.Name, NamespaceParam, err)
	}
	name, err := resolve(nameTmpl, pv, pvc, false)
	if err != nil {
		return nil, fmt.Errorf("StorageClass %q parameter %s: %w", sc.Name, NameParam, err)
	}
	return &Ref{Namespace: ns, Name: name}, nil
}

// The PV annotations in which the external-provisioner records the Secret of
// ControllerModifyVolume, as upstream reads them.
const (
	ModifyNameAnnotation      = "volume.kubernetes.io/controller-modify-secret-name"
	ModifyNamespaceAnnotation = "volume.kubernetes.io/controller-modify-secret-namespace"
)

// ModifyRefFor returns the Secret to use when modifying pv: the one the
// PV's annotations name when both are set, as upstream; else the expansion
// Secret that RefFor finds (the PV's controllerExpandSecretRef, which
// upstream also falls back to, then the StorageClass templates).
func ModifyRefFor(pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim, sc *storagev1.StorageClass) (*Ref, error) {
	if pv == nil {
		return nil, errors.New("find modification secret: no PersistentVolume given")
	}
	name, ns := pv.Annotations[ModifyNameAnnotation], pv.Annotations[ModifyNamespaceAnnotation]
	if name != "" && ns != "" {
		return &Ref{Namespace: ns, Name: name, Use: "volume modification"}, nil
	}
	ref, err := RefFor(pv, pvc, sc)
	if ref != nil {
		ref.Use = "volume modification"
	}
	return ref, err
}

// Tokens of the external-provisioner's secret templates, written ${<token>} in a template.
const (
	tokenPVName        = "pv.name"
	tokenPVCNamespace  = "pvc.namespace"
	tokenPVCName       = "pvc.name"
	tokenAnnotationPre = "pvc.annotations['"
	tokenAnnotationSuf = "']"
)

// maxShown bounds how much of a template, token or resolved value an error quotes: a PVC
// annotation can be hundreds of kilobytes, and errors end up in events.
const maxShown = 100

// resolve resolves a namespace template (namespace true) or a Secret name template. A
// namespace template may use only ${pv.name} and ${pvc.namespace}: neither is under the PVC
// user's control, so a user cannot point the resizer at a Secret in a namespace of their
// choosing. A name template may also use ${pvc.name} and ${pvc.annotations['<key>']}, which the
// PVC user controls; that is safe only because the result must be a DNS-1123 subdomain, which
// rules out "/", ".." and anything else that could reach outside the chosen namespace.
func resolve(tmpl string, pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim, namespace bool) (string, error) {
	what, valid := "Secret name", validation.IsDNS1123Subdomain
	if namespace {
		what, valid = "namespace name", validation.IsDNS1123Label
	}
	out, err := expand(tmpl, func(tok string) (string, error) {
		quoted := quote("${" + tok + "}")
		key, isAnnotation := annotationKey(tok)
		switch {
		case tok == tokenPVName:
			return pv.Name, nil
		case namespace && tok != tokenPVCNamespace:
			return "", fmt.Errorf("token %s is not allowed in a namespace template, which may use only ${%s} and ${%s}",
				quoted, tokenPVName, tokenPVCNamespace)
		case tok != tokenPVCNamespace && tok != tokenPVCName && !isAnnotation:
			return "", fmt.Errorf("unknown token %s: a name template may use ${%s}, ${%s}, ${%s} and ${%s<key>%s}",
				quoted, tokenPVName, tokenPVCNamespace, tokenPVCName, tokenAnnotationPre, tokenAnnotationSuf)
		case pvc == nil:
			return "", fmt.Errorf("token %s needs a PersistentVolumeClaim, and there is none", quoted)
		case tok == tokenPVCNamespace:
			return pvc.Namespace, nil
		case tok == tokenPVCName:
			return pvc.Name, nil
		}
		v, found := pvc.Annotations[key]
		if !found {
			return "", fmt.Errorf("token %s: PersistentVolumeClaim %s has no annotation %s",
				quoted, quote(pvc.Namespace+"/"+pvc.Name), quote(key))
		}
		return v, nil
	})
	if err != nil {
		return "", fmt.Errorf("template %s: %w", quote(tmpl), err)
	}
	if errs := valid(out); len(errs) > 0 {
		return "", fmt.Errorf("template %s resolved to %s, which is not a valid %s: %s",
			quote(tmpl), quote(out), what, strings.Join(errs, "; "))
	}
	return out, nil
}

// expand replaces each ${token} of tmpl by lookup(token), in one pass: a value that itself
// contains "${...}" is copied as is, never expanded again. It is stricter than the
// external-provisioner's os.Expand, which silently drops an unterminated "${" and reads
// "$name" as a token: both are errors here, since neither can yield a valid name anyway and
// a clear message saves the operator a guess.
func expand(tmpl string, lookup func(token string) (string, error)) (string, error) {
	var b strings.Builder
	rest := tmpl
	for {
		i := strings.IndexByte(rest, '$')
		if i < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		b.WriteString(rest[:i])
		offset := len(tmpl) - len(rest) + i
		rest = rest[i+1:]
		if !strings.HasPrefix(rest, "{") {
			return "", fmt.Errorf("\"$\" at byte %d does not start a token: tokens are written ${...}", offset)
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated token %s at byte %d: missing \"}\"", quote("$"+rest), offset)
		}
		v, err := lookup(rest[1:end])
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		rest = rest[end+1:]
	}
}

// annotationKey returns <key> from the token pvc.annotations['<key>'].
func annotationKey(tok string) (string, bool) {
	if len(tok) < len(tokenAnnotationPre)+len(tokenAnnotationSuf) ||
		!strings.HasPrefix(tok, tokenAnnotationPre) || !strings.HasSuffix(tok, tokenAnnotationSuf) {
		return "", false
	}
	return tok[len(tokenAnnotationPre) : len(tok)-len(tokenAnnotationSuf)], true
}

// quote returns s in Go quoted form, escaping control and invalid bytes so that an error
// shows exactly what was written, and cut to maxShown bytes (on a rune boundary) so that a
// huge annotation cannot flood an event.
func quote(s string) string {
	if len(s) <= maxShown {
		return strconv.Quote(s)
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s...(%d bytes)", strconv.Quote(s[:cut]), len(s))
}
