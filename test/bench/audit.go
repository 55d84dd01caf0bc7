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

package main

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// requestKey names a kind of request: verb, resource (with its API group,
// if any) and subresource. Requests that name no object (discovery,
// /version) have the URL path as Resource.
type requestKey struct {
	Verb, Resource, Subresource string
}

func (k requestKey) String() string {
	s := k.Verb + " " + k.Resource
	if k.Subresource != "" {
		s += "/" + k.Subresource
	}
	return s
}

// request is one finished API request of the user under study.
type request struct {
	requestKey
	Code int
	At   time.Time
}

// objectRef is who made a request and on which object: the namespace and
// name of the audit event's objectRef (the server fills in the name of a
// create from its body), empty for requests that name none.
type objectRef struct {
	User, Namespace, Name string
}

// parseAuditLine returns the request of one audit log line and its object,
// and whether it is a finished request (stage ResponseComplete) of a user
// that keep accepts.
func parseAuditLine(line []byte, keep func(user string) bool) (request, objectRef, bool, error) {
	var e framework.AuditEvent
	if err := json.Unmarshal(line, &e); err != nil {
		return request{}, objectRef{}, false, err
	}
	if e.Stage != "ResponseComplete" || !keep(e.User.Username) {
		return request{}, objectRef{}, false, nil
	}
	r := request{requestKey: requestKey{Verb: e.Verb}, At: e.StageTimestamp, Code: e.ResponseStatus.Code}
	ref := objectRef{User: e.User.Username}
	if o := e.ObjectRef; o.Resource != "" {
		r.Resource, r.Subresource = o.Resource, o.Subresource
		if o.APIGroup != "" {
			r.Resource += "." + o.APIGroup
		}
		ref.Namespace, ref.Name = o.Namespace, o.Name
	} else {
		r.Resource, _, _ = strings.Cut(e.RequestURI, "?")
	}
	return r, ref, true, nil
}

// requestClass is how the report groups requests.
type requestClass string

const (
	classListWatch requestClass = "list/watch"
	classRead      requestClass = "read"
	classWrite     requestClass = "write"
	classEvent     requestClass = "event write"
	classOther     requestClass = "other"
)

// classify puts a request in its class. Events are written by the event
// recorder, not by the resize itself, so they count apart.
func classify(k requestKey) requestClass {
	switch k.Verb {
	case "list", "watch":
		return classListWatch
	case "get":
		return classRead
	case "create", "update", "patch", "delete", "deletecollection":
		switch {
		case k.Resource == "events" || k.Resource == "events.events.k8s.io":
			return classEvent
		case strings.HasSuffix(strings.Split(k.Resource, ".")[0], "reviews"):
			// A review (selfsubjectreviews, subjectaccessreviews, ...: the
			// resizer asks who it is at start) persists nothing: the server
			// answers a question, as for a read.
			return classRead
		}
		return classWrite
	}
	return classOther
}

// tally counts requests by kind, class and response code.
type tally struct {
	ByKey   map[requestKey]int
	ByClass map[requestClass]int
	ByCode  map[int]int
}

func count(reqs []request) tally {
	t := tally{ByKey: map[requestKey]int{}, ByClass: map[requestClass]int{}, ByCode: map[int]int{}}
	for _, r := range reqs {
		t.ByKey[r.requestKey]++
		t.ByClass[classify(r.requestKey)]++
		t.ByCode[r.Code]++
	}
	return t
}

// kinds returns the request kinds of the tallies, sorted by class, then by
// name.
func kinds(ts ...tally) []requestKey {
	order := map[requestClass]int{classWrite: 0, classEvent: 1, classRead: 2, classOther: 3, classListWatch: 4}
	var ks []requestKey
	for _, t := range ts {
		for k := range t.ByKey {
			if !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
	}
	slices.SortFunc(ks, func(a, b requestKey) int {
		return cmp.Or(cmp.Compare(order[classify(a)], order[classify(b)]), strings.Compare(a.String(), b.String()))
	})
	return ks
}

// between returns the requests that finished in [from, to].
func between(reqs []request, from, to time.Time) []request {
	var out []request
	for _, r := range reqs {
		if !r.At.Before(from) && !r.At.After(to) {
			out = append(out, r)
		}
	}
	return out
}
