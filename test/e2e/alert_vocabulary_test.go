//go:build e2e

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

package e2e

import (
	"strings"
	"testing"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
)

// TestInfeasibleAlertSaysTheVocabulary: the chart's CSIResizerClaimsInfeasible
// alert says, for every code the failure vocabulary classes infeasible, the
// words the vocabulary gives it (decide.Meaning.Alert), and names no code
// as infeasible that the vocabulary does not class so.
func TestInfeasibleAlertSaysTheVocabulary(t *testing.T) {
	_, groups := renderRules(t)
	description := strings.Join(strings.Fields(ruleOf(t, groups, "CSIResizerClaimsInfeasible").Annotations["description"]), " ")
	infeasible := map[string]bool{}
	for _, job := range []decide.Job{decide.ResizeJob, decide.ModifyJob} {
		for _, code := range decide.CodeNames() {
			m := decide.MeaningOf(job, code)
			if m.Class != decide.Infeasible {
				continue
			}
			infeasible[code] = true
			if !strings.Contains(description, m.Alert) {
				t.Errorf("the alert does not say of %s %s %q:\n%s", job, code, m.Alert, description)
			}
		}
	}
	for _, code := range decide.CodeNames() {
		if strings.Contains(description, code) && !infeasible[code] {
			t.Errorf("the alert names %s, which no job classes infeasible:\n%s", code, description)
		}
	}
}
