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

package decide

import (
	"regexp"
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
)

// TestVocabulary: every answer of both jobs has its meaning, classed as the
// job's rules class it, with what follows matching the class, and the
// words leave only the renderer's placeholders.
func TestVocabulary(t *testing.T) {
	placeholder := regexp.MustCompile(`\{[a-z]+\}`)
	rendered := []string{"{pv}", "{handle}", "{driver}", "{class}", "{params}", "{secret}"}
	for _, job := range []Job{ResizeJob, ModifyJob} {
		for _, code := range CodeNames() {
			m := MeaningOf(job, code)
			if m.Job != job || m.Code != code || m.Class != rulesOf(job).ClassOfReason(code) {
				t.Errorf("%s %s: meaning of %s %s, class %s; want the rules' class %s", job, code, m.Job, m.Code, m.Class, rulesOf(job).ClassOfReason(code))
			}
			want := map[Class]Next{Uncertain: RetrySame, Infeasible: RetrySlow, Final: RetryBackoff}[m.Class]
			if job == ResizeJob && code == codes.FailedPrecondition.String() {
				want = RetryWhenUnused
			}
			if m.Next != want {
				t.Errorf("%s %s: next %d, want %d", job, code, m.Next, want)
			}
			if (m.Class == Infeasible) != (m.Alert != "") {
				t.Errorf("%s %s (%s): alert %q; an infeasible code, and only one, has the alert's words", job, code, m.Class, m.Alert)
			}
			for _, text := range append([]string{m.Means, m.Until}, append(m.Can, m.CanWhenUnused...)...) {
				for _, p := range placeholder.FindAllString(text, -1) {
					if !slices.Contains(rendered, p) {
						t.Errorf("%s %s: %q keeps %s, which no renderer fills", job, code, text, p)
					}
				}
			}
		}
	}
}

// TestVocabularyOfUnknownCodes: a code outside gRPC's is final and retried
// with backoff; a failure without a code is uncertain.
func TestVocabularyOfUnknownCodes(t *testing.T) {
	if m := MeaningOf(ResizeJob, "Code(42)"); m.Class != Final || m.Next != RetryBackoff {
		t.Errorf("Code(42): class %s next %d, want final, backoff", m.Class, m.Next)
	}
	if m := MeaningOf(ModifyJob, ReasonUncertain); m.Class != Uncertain || m.Next != RetrySame {
		t.Errorf("no code: class %s next %d, want uncertain, the same target", m.Class, m.Next)
	}
}
