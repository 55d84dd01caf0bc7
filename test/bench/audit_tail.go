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
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// auditTail follows an audit log from an offset and keeps the finished
// requests of some users. kube-apiserver rotates its audit log at 100 MB
// (--audit-log-maxsize): the file is renamed to <name>-<time>.<ext> and a
// new one begins, so the tail finishes the renamed file before it goes on.
type auditTail struct {
	path    string
	keep    func(user string) bool
	current os.FileInfo // the file being read (its identity, whatever its name now)
	offset  int64
	// refs[i] is the user and object of requests[i].
	requests []request
	refs     []objectRef
}

// newAuditTail starts at the current end of path, for the requests of any
// of users: what was logged before is not looked at.
func newAuditTail(path string, users ...string) (*auditTail, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, u := range users {
		set[u] = true
	}
	return &auditTail{path: path, keep: func(u string) bool { return set[u] }, current: fi, offset: fi.Size()}, nil
}

// poll reads the lines completed since the last poll, through every
// rotation since. A line still being written is left for the next poll.
func (t *auditTail) poll() error {
	for {
		f, err := os.Open(t.path)
		if err != nil {
			return err
		}
		fi, err := f.Stat()
		if err == nil && os.SameFile(fi, t.current) {
			err = t.read(f)
			f.Close()
			return err
		}
		f.Close()
		if err != nil {
			return err
		}
		// Rotated: what was being read is now a backup, complete.
		backups, err := rotated(t.path)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(backups, func(b string) bool {
			bi, err := os.Stat(b)
			return err == nil && os.SameFile(bi, t.current)
		})
		if i < 0 {
			return fmt.Errorf("audit log %s was rotated and its backup is gone", t.path)
		}
		b, err := os.Open(backups[i])
		if err != nil {
			return err
		}
		err = t.read(b)
		b.Close()
		if err != nil {
			return err
		}
		next := t.path
		if i+1 < len(backups) {
			next = backups[i+1]
		}
		if t.current, err = os.Stat(next); err != nil {
			return err
		}
		t.offset = 0
	}
}

// rotated lists the backups of the log at path, oldest first: the rotation
// names them <name>-<UTC time, 2006-01-02T15-04-05.000>.<ext>, which sort
// in time order.
func rotated(path string) ([]string, error) {
	ext := filepath.Ext(path)
	backups, err := filepath.Glob(strings.TrimSuffix(path, ext) + "-*" + ext)
	slices.Sort(backups)
	return backups, err
}

// read reads the complete lines of f from the offset.
func (t *auditTail) read(f *os.File) error {
	if _, err := f.Seek(t.offset, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return nil // a partial line, if any, waits
		}
		if err != nil {
			return err
		}
		t.offset += int64(len(line))
		req, ref, ok, err := parseAuditLine(bytes.TrimSpace(line), t.keep)
		if err != nil {
			return fmt.Errorf("audit log %s at byte %d: %w", f.Name(), t.offset-int64(len(line)), err)
		}
		if ok {
			t.requests = append(t.requests, req)
			t.refs = append(t.refs, ref)
		}
	}
}

// forcedClose is the message kube-apiserver's watch cache logs (at V(1))
// when it drops a watcher that does not take its events fast enough; the
// client must then start a new watch.
const forcedClose = "watcher close due to unresponsiveness"

// forcedCloses counts, in a kube-apiserver log, the watches the server
// closed as unresponsive, by key: "/persistentvolumeclaims/" is a watch of
// all namespaces (the resizer's), "/persistentvolumeclaims/bench" one of a
// namespace (the benchmark's own).
func forcedCloses(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int{}
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		if key, ok := forcedCloseKey(s.Text()); ok {
			out[key]++
		}
	}
	return out, s.Err()
}

// forcedCloses counts the watches the rig's kube-apiserver closed as
// unresponsive so far: those of all namespaces (the resizers') by key, and
// the others (the benchmark's own claim watches).
func (r *rig) forcedCloses() (resizers map[string]int, own int, err error) {
	closes, err := forcedCloses(filepath.Join(r.cluster.Dir, "kube-apiserver.log"))
	resizers = map[string]int{}
	for key, n := range closes {
		if allNamespaces(key) {
			resizers[key] = n
		} else {
			own += n
		}
	}
	return resizers, own, err
}

// forcedCloseKey returns the storage key of a forced-close log line.
func forcedCloseKey(line string) (string, bool) {
	if !strings.Contains(line, forcedClose) {
		return "", false
	}
	_, rest, ok := strings.Cut(line, `key: "`)
	if !ok {
		return "unknown", true
	}
	key, _, _ := strings.Cut(rest, `"`)
	return key, true
}

// allNamespaces reports whether a watch-cache key is a watch of every
// namespace (or of a cluster-scoped resource): "/<resource>/".
func allNamespaces(key string) bool {
	return strings.Count(key, "/") == 2 && strings.HasSuffix(key, "/")
}
