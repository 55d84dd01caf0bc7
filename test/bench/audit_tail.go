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
	path string
	keep func(user string) bool
	// current is the file being read (its identity, whatever its name
	// now), offset how far.
	current  os.FileInfo
	offset   int64
	requests []request
	// refs[i] is the user and object of requests[i].
	refs []objectRef
}

// newAuditTail starts at the current end of path: what was logged before
// is not looked at.
func newAuditTail(path, user string) (*auditTail, error) {
	return newAuditTailOf(path, user)
}

// newAuditTailOf is newAuditTail for the requests of any of users.
func newAuditTailOf(path string, users ...string) (*auditTail, error) {
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
		req, ref, ok, err := parseAuditLineOf(bytes.TrimSpace(line), t.keep)
		if err != nil {
			return fmt.Errorf("audit log %s at byte %d: %w", f.Name(), t.offset-int64(len(line)), err)
		}
		if ok {
			t.requests = append(t.requests, req)
			t.refs = append(t.refs, ref)
		}
	}
}
