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
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

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

// resolveNamespace resolves a namespace template. Only ${pv.name} and ${pvc.namespace} may
// appear: neither is under the PVC user's control, so a user cannot point the resizer at a
// Secret in a namespace of their choosing.
func resolveNamespace(tmpl string, pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim) (string, error) {
	ns, err := expand(tmpl, func(tok string) (string, error) {
		switch tok {
		case tokenPVName:
			return pv.Name, nil
		case tokenPVCNamespace:
			return pvcField(pvc, tok, func(c *v1.PersistentVolumeClaim) string { return c.Namespace })
		}
		return "", fmt.Errorf("token %s is not allowed in a namespace template, which may use only ${%s} and ${%s}",
			quote("${"+tok+"}"), tokenPVName, tokenPVCNamespace)
	})
	if err != nil {
		return "", fmt.Errorf("template %s: %w", quote(tmpl), err)
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return "", fmt.Errorf("template %s resolved to %s, which is not a valid namespace name: %s",
			quote(tmpl), quote(ns), strings.Join(errs, "; "))
	}
	return ns, nil
}

// resolveName resolves a Secret name template. Besides the namespace tokens it may use
// ${pvc.name} and ${pvc.annotations['<key>']}, which the PVC user controls; that is safe only
// because the result must be a DNS-1123 subdomain, which rules out "/", ".." and anything
// else that could reach outside the chosen namespace.
func resolveName(tmpl string, pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim) (string, error) {
	name, err := expand(tmpl, func(tok string) (string, error) {
		switch tok {
		case tokenPVName:
			return pv.Name, nil
		case tokenPVCNamespace:
			return pvcField(pvc, tok, func(c *v1.PersistentVolumeClaim) string { return c.Namespace })
		case tokenPVCName:
			return pvcField(pvc, tok, func(c *v1.PersistentVolumeClaim) string { return c.Name })
		}
		if key, ok := annotationKey(tok); ok {
			if pvc == nil {
				return "", fmt.Errorf("token %s needs a PersistentVolumeClaim, and there is none", quote("${"+tok+"}"))
			}
			v, found := pvc.Annotations[key]
			if !found {
				return "", fmt.Errorf("token %s: PersistentVolumeClaim %s has no annotation %s",
					quote("${"+tok+"}"), quote(pvc.Namespace+"/"+pvc.Name), quote(key))
			}
			return v, nil
		}
		return "", fmt.Errorf("unknown token %s: a name template may use ${%s}, ${%s}, ${%s} and ${%s<key>%s}",
			quote("${"+tok+"}"), tokenPVName, tokenPVCNamespace, tokenPVCName, tokenAnnotationPre, tokenAnnotationSuf)
	})
	if err != nil {
		return "", fmt.Errorf("template %s: %w", quote(tmpl), err)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", fmt.Errorf("template %s resolved to %s, which is not a valid Secret name: %s",
			quote(tmpl), quote(name), strings.Join(errs, "; "))
	}
	return name, nil
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

// pvcField reads a field of pvc for token tok, failing clearly when there is no PVC.
func pvcField(pvc *v1.PersistentVolumeClaim, tok string, field func(*v1.PersistentVolumeClaim) string) (string, error) {
	if pvc == nil {
		return "", fmt.Errorf("token %s needs a PersistentVolumeClaim, and there is none", quote("${"+tok+"}"))
	}
	return field(pvc), nil
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
