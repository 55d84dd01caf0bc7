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
	"bufio"
	gobytes "bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestSecretsNeverLeakAtV10 is the security run of "never log a secret" (docs/design.md#never): the
// resizer binary at --v=10, where client-go logs request and response bodies (protobuf ones as
// hex dumps), resizes claims whose expansion Secrets come from a PV's controllerExpandSecretRef
// and from StorageClass templates, with a controller-only and a controller+node driver, one
// driver failure included. Every Secret value is random, made now. The driver must receive
// them (else the search proves nothing); then the resizer's logs, kube-apiserver's and etcd's
// logs, the audit log and every Event of the cluster are searched for each value as text, in
// base64 and inside reconstructed hex dumps: 0 hits.
//
// The CSI driver's own log and call log are not searched for the verdict: the driver is where the
// secrets are meant to go. Its hits are counted and printed apart.
func TestSecretsNeverLeakAtV10(t *testing.T) {
	var values []string // every secret value of the run
	var resizerLogs, namespaces []string
	var drivers []*framework.Driver
	for _, node := range []bool{false, true} {
		e := newEnv(t, framework.DriverOptions{NodeExpansionRequired: node}, "--v=10")
		values = append(values, e.secretResizes(node)...)
		// SIGTERM: the resizer flushes its log before it exits.
		if err := e.resizer.Stop(30 * time.Second); err != nil {
			t.Errorf("stop resizer: %v", err)
		}
		resizerLogs = append(resizerLogs, e.resizer.Log)
		namespaces = append(namespaces, e.ns)
		drivers = append(drivers, e.driver)
	}

	needles := leakForms(values)
	var sources []leakSource
	for i, log := range resizerLogs {
		src := fileSource(t, fmt.Sprintf("resizer log %d (--v=10)", i+1), log)
		src.ns = namespaces[i]
		sources = append(sources, src)
	}
	sources = append(sources,
		fileSource(t, "kube-apiserver log", filepath.Join(cluster.Dir, "kube-apiserver.log")),
		fileSource(t, "etcd log", filepath.Join(cluster.Dir, "etcd.log")),
		fileSource(t, "audit log", cluster.AuditLog),
		eventSource(t))

	// The search must be able to see what it looks for: the resizer logged bodies (hex dumps of
	// protobuf responses, read back here) and the Secret reads themselves.
	resizer := sources[0]
	if !gobytes.Contains(resizer.text, []byte(`"Response Body"`)) || len(resizer.dumps) == 0 {
		t.Fatalf("the resizer's log has no response bodies at --v=10; the search would prove nothing")
	}
	var dumped []byte
	for _, d := range resizer.dumps {
		dumped = append(dumped, d.data...)
	}
	if !gobytes.Contains(dumped, []byte("pv-"+resizer.ns)) {
		t.Errorf("no PV name in the hex dumps read back from the resizer's log; the hex reading is broken")
	}
	if !gobytes.Contains(resizer.text, []byte("/secrets/")) {
		t.Errorf("the resizer's log shows no Secret read at --v=10")
	}
	// csi-lib-utils logs every gRPC request at V(5), secrets replaced by its sanitizer.
	if !gobytes.Contains(resizer.text, []byte("ControllerExpandVolume")) || !gobytes.Contains(resizer.text, []byte("***stripped***")) {
		t.Errorf("the resizer's log shows no sanitized ControllerExpandVolume request at --v=10")
	}

	total := 0
	for _, s := range sources {
		hits := s.search(needles)
		total += len(hits)
		t.Logf("searched %-28s %8d lines %10d bytes, %5d hex dumps (%d bytes): %d hits", s.name, s.lines, len(s.text), len(s.dumps), dumpBytes(s.dumps), len(hits))
		for _, h := range hits {
			t.Errorf("secret leak in %s: %s", s.name, h)
		}
	}
	t.Logf("%d secret values searched as %d strings (text, base64 std/raw/URL-safe; some forms coincide), %d hits", len(values), len(needles), total)

	// Reported apart: the driver legitimately receives the secrets; a driver that logs them is the
	// driver's business, not the resizer's.
	for i, d := range drivers {
		for _, f := range []string{d.Log(), d.CallLog} {
			s := fileSource(t, fmt.Sprintf("driver %d %s", i+1, filepath.Base(f)), f)
			t.Logf("not asserted (the driver is the secrets' destination): %s, %d lines, %d hits", s.name, s.lines, len(s.search(needles)))
		}
	}
}

// secretResizes creates three claims whose Secrets come from the PV's controllerExpandSecretRef,
// from a class templated with ${pvc.name}/${pvc.namespace} and from one templated with
// ${pv.name}/${pvc.namespace}; grows each once (the first driver call fails) and the first one a
// second time; and checks every driver call got its claim's Secret. It returns the values.
func (e *env) secretResizes(node bool) []string {
	t := e.t
	t.Helper()
	var values []string
	secret := func(name string) map[string]string {
		data := map[string]string{"username": randomValue(t), "password": randomValue(t)}
		_, err := cluster.Admin.CoreV1().Secrets(e.ns).Create(e.ctx, &v1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: data,
		}, metav1.CreateOptions{})
		must(t, err)
		values = append(values, data["username"], data["password"])
		return data
	}
	byClaim, byPV := e.class+"-by-claim", e.class+"-by-pv"
	must(t, framework.CreateClass(e.ctx, cluster.Admin, byClaim, e.driver.Name, map[string]string{
		"csi.storage.k8s.io/controller-expand-secret-name":      "${pvc.name}",
		"csi.storage.k8s.io/controller-expand-secret-namespace": "${pvc.namespace}",
	}))
	must(t, framework.CreateClass(e.ctx, cluster.Admin, byPV, e.driver.Name, map[string]string{
		"csi.storage.k8s.io/controller-expand-secret-name":      "${pv.name}-expand",
		"csi.storage.k8s.io/controller-expand-secret-namespace": "${pvc.namespace}",
	}))

	want := map[string]map[string]string{} // volume handle → the Secret's data
	refData := secret("pv-ref")
	v := e.volume("by-ref", "1Gi", func(v *framework.Volume) {
		v.SecretRef = &v1.SecretReference{Namespace: e.ns, Name: "pv-ref"}
	})
	want[v.Handle] = refData
	claimData := secret("by-claim")
	v = e.volume("by-claim", "1Gi", func(v *framework.Volume) { v.Class = byClaim })
	want[v.Handle] = claimData
	pvName := framework.Volume{Namespace: e.ns, Claim: "by-pv"}.PVName()
	pvData := secret(pvName + "-expand")
	v = e.volume("by-pv", "1Gi", func(v *framework.Volume) { v.Class = byPV })
	want[v.Handle] = pvData

	// The node step is a real kubelet's, for pods that mount the claims.
	if node {
		kubelet := e.startNode("node")
		for _, claim := range []string{"by-ref", "by-claim", "by-pv"} {
			e.runPod(kubelet, claim, claim)
		}
	}
	// One failure: its message goes into an event and the claim's condition.
	must(t, e.driver.Script(framework.Answer{Code: "Internal", Message: "backend is down"}))
	resize := func(claim, size string) {
		e.grow(claim, size)
		e.waitClaim(claim, "the resize to "+size, finished(size))
	}
	for _, claim := range []string{"by-ref", "by-claim", "by-pv"} {
		resize(claim, "2Gi")
	}
	resize("by-ref", "3Gi")

	calls := e.calls()
	seen := map[string]int{}
	for _, c := range calls {
		seen[c.VolumeID]++
		if !equalData(c.Secrets, want[c.VolumeID]) {
			t.Errorf("driver call for %s got secrets with keys %v, not its Secret's", c.VolumeID, keys(c.Secrets))
		}
	}
	for handle := range want {
		if seen[handle] == 0 {
			t.Errorf("no driver call for %s: its Secret never flowed", handle)
		}
	}
	if len(calls) != 5 { // 3 + 1 resizes, 1 failure
		t.Errorf("driver calls = %d, want 5", len(calls))
	}
	e.waitFact("by-ref", fact{reason: events.ReasonResizeFailed, code: "Internal"})
	return values
}

// randomValue is 24 random letters and digits: nothing else in a log looks like it, and it
// needs no escaping in any log format.
func randomValue(t *testing.T) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 24)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		must(t, err)
		b[i] = alphabet[n.Int64()]
	}
	return string(b)
}

// leakForms maps each form a value can take in a log or object to its name: the text, and
// base64 as Secret data travels in JSON (std), without padding (raw) and URL-safe.
func leakForms(values []string) map[string]string {
	forms := map[string]string{}
	for i, v := range values {
		forms[v] = fmt.Sprintf("value %d as text", i)
		for name, enc := range map[string]*base64.Encoding{
			"base64": base64.StdEncoding, "raw base64": base64.RawStdEncoding, "URL base64": base64.URLEncoding,
		} {
			forms[enc.EncodeToString([]byte(v))] = fmt.Sprintf("value %d in %s", i, name)
		}
	}
	return forms
}

// leakSource is something searched: its text, and the bytes of the hex dumps in it.
type leakSource struct {
	name  string
	ns    string // for the resizer's log: a namespace whose PV names must appear in the dumps
	text  []byte
	lines int
	dumps []dump
}

// dump is one hex dump read back from a log: its bytes, the line it starts at and the log line
// before it (klog's "Response Body" line, which names the call).
type dump struct {
	data   []byte
	line   int
	header string
}

func fileSource(t *testing.T, name, path string) leakSource {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	return newSource(name, data)
}

func newSource(name string, data []byte) leakSource {
	return leakSource{name: name, text: data, lines: gobytes.Count(data, []byte("\n")), dumps: hexDumps(data)}
}

// eventSource is every Event of the cluster, all fields (message, reason, note, related
// objects), as JSON.
func eventSource(t *testing.T) leakSource {
	t.Helper()
	list, err := cluster.Admin.CoreV1().Events("").List(context.Background(), metav1.ListOptions{})
	must(t, err)
	var buf gobytes.Buffer
	for _, ev := range list.Items {
		data, err := json.Marshal(ev)
		must(t, err)
		buf.Write(data)
		buf.WriteByte('\n')
	}
	return newSource(fmt.Sprintf("events (%d)", len(list.Items)), buf.Bytes())
}

// search returns a line per form found, in the text or in a hex dump.
func (s leakSource) search(forms map[string]string) []string {
	var hits []string
	for needle, what := range forms {
		if n := gobytes.Count(s.text, []byte(needle)); n > 0 {
			hits = append(hits, fmt.Sprintf("%s, %d times, e.g. %s", what, n, redactedLine(s.text, needle)))
		}
		for _, d := range s.dumps {
			if gobytes.Contains(d.data, []byte(needle)) {
				header := strings.ReplaceAll(d.header, needle, "<REDACTED>")
				if len(header) > 200 {
					header = header[:200] + "…"
				}
				hits = append(hits, fmt.Sprintf("%s in the hex dump at line %d, after %s", what, d.line, header))
			}
		}
	}
	sort.Strings(hits)
	return hits
}

// redactedLine is the first line holding needle, the needle replaced, cut to 300 gobytes.
func redactedLine(text []byte, needle string) string {
	i := gobytes.Index(text, []byte(needle))
	start := gobytes.LastIndexByte(text[:i], '\n') + 1
	end := gobytes.IndexByte(text[i:], '\n')
	if end < 0 {
		end = len(text) - i
	}
	line := strings.ReplaceAll(string(text[start:i+end]), needle, "<REDACTED>")
	if len(line) > 300 {
		line = line[:300] + "…"
	}
	return line
}

// hexDumps reads back the bytes of every encoding/hex.Dump in text. client-go logs protobuf
// bodies so at --v>=8; klog prints them one dump line a log line, each after a tab, as
//
//	00000000  6b 38 73 00 0a 0c 0a 02  76 31 12 06 53 65 63 72  |k8s.....v1..Secr|
//
// where the ASCII column cuts text at every 16 bytes, so a plain search misses what spans two
// lines. A dump starts at offset 0 and ends at the first line that is not one of its lines.
func hexDumps(text []byte) []dump {
	var dumps []dump
	var cur *dump
	var next int64
	flush := func() {
		if cur != nil {
			dumps = append(dumps, *cur)
		}
		cur = nil
	}
	s := bufio.NewScanner(gobytes.NewReader(text))
	s.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	previous := ""
	for n := 1; s.Scan(); n++ {
		offset, data, ok := hexDumpLine(s.Text())
		switch {
		case !ok:
			flush()
		case offset == 0:
			flush()
			cur, next = &dump{data: data, line: n, header: previous}, int64(len(data))
		case cur != nil && offset == next:
			cur.data = append(cur.data, data...)
			next += int64(len(data))
		default:
			flush()
		}
		previous = s.Text()
	}
	flush()
	return dumps
}

// hexDumpLine parses "<8 hex digits>  <up to 16 hex bytes>  |ascii|".
func hexDumpLine(line string) (offset int64, data []byte, ok bool) {
	line = strings.TrimLeft(line, " \t")
	if len(line) < 12 || line[8:10] != "  " {
		return 0, nil, false
	}
	off, err := hex.DecodeString(line[:8])
	if err != nil {
		return 0, nil, false
	}
	for _, b := range off {
		offset = offset<<8 | int64(b)
	}
	area := line[10:]
	if i := strings.IndexByte(area, '|'); i >= 0 {
		area = area[:i]
	}
	for _, f := range strings.Fields(area) {
		b, err := hex.DecodeString(f)
		if err != nil || len(b) != 1 {
			break // a truncated body ends in "[truncated N chars]"
		}
		data = append(data, b[0])
	}
	return offset, data, len(data) > 0
}

func dumpBytes(dumps []dump) int {
	n := 0
	for _, d := range dumps {
		n += len(d.data)
	}
	return n
}

func equalData(got, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestHexDumpReading checks the reading of hex dumps the leak search relies on: a value cut by
// the dump's lines is found again, as klog prints it.
func TestHexDumpReading(t *testing.T) {
	body := append([]byte("k8s\x00\x0a\x0c\x0a\x02v1\x12\x06Secret\x12\x18"), "Zq81LmXw0pTt7RvBn4KdYe2H"...)
	var log gobytes.Buffer
	log.WriteString(`I0101 00:00:00.000000 1 request.go:1300] "Response Body" body=<` + "\n")
	for _, l := range strings.SplitAfter(strings.TrimSuffix(hex.Dump(body), "\n"), "\n") {
		log.WriteString("\t" + l)
	}
	log.WriteString("\n >\n")
	dumps := hexDumps(log.Bytes())
	if len(dumps) != 1 || !gobytes.Equal(dumps[0].data, body) || dumps[0].line != 2 {
		t.Fatalf("read back %+v, want %q at line 2", dumps, body)
	}
	if gobytes.Contains(log.Bytes(), []byte("Zq81LmXw0pTt7RvBn4KdYe2H")) {
		t.Fatal("the value is whole in the dump's text: this test does not test line cuts")
	}
	if hits := newSource("dump", log.Bytes()).search(leakForms([]string{"Zq81LmXw0pTt7RvBn4KdYe2H"})); len(hits) != 1 {
		t.Errorf("hits = %v, want the one in the dump", hits)
	}
}
