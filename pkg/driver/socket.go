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

package driver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// SocketError says why the driver's unix socket cannot be opened: the
// address, the OS error, and what the process can see of the socket, so
// that a log line or /readyz alone tells an operator what to fix.
type SocketError struct {
	// Address is the --csi-address the socket was named by.
	Address string
	// Err is the error of the dial, which wraps the OS error
	// (errors.Is(err, syscall.EACCES) and the like work on it).
	Err error
	// Why is the error in words: the cause, and what to check.
	Why string
}

// Error implements error.
func (e *SocketError) Error() string {
	return fmt.Sprintf("cannot connect to the CSI driver at %q: %s", e.Address, e.Why)
}

// Unwrap returns the dial error.
func (e *SocketError) Unwrap() error { return e.Err }

// maxSocketPath is the longest path a unix socket address holds on Linux
// (sun_path is 108 bytes with its terminating NUL).
const maxSocketPath = 107

// dialSocket opens and closes one connection to the socket at path, and
// says why when it cannot.
func dialSocket(address, path string, timeout time.Duration) error {
	conn, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		return &SocketError{Address: address, Err: err, Why: whyNot(path, err)}
	}
	_ = conn.Close()
	return nil
}

// whyNot explains a failed dial of the socket at path by its OS error and
// by what a stat of the path shows.
func whyNot(path string, err error) string {
	info, statErr := os.Stat(path)
	switch {
	case len(path) > maxSocketPath:
		return fmt.Sprintf("the path is %d bytes long, and a unix socket's path may have at most %d", len(path), maxSocketPath)
	case errors.Is(err, syscall.ENOENT):
		return "connect: no such file or directory: the driver has not created its socket (yet); check that the driver runs and that both containers mount the socket's directory where --csi-address points"
	case errors.Is(err, syscall.ENOTDIR):
		return "connect: not a directory: a part of the path is a file, not a directory"
	case statErr == nil && info.Mode().Type() != fs.ModeSocket:
		return fmt.Sprintf("connect: %s: the path is %s, not a socket", osErrorText(err), kindOf(info.Mode()))
	case errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM):
		return "connect: permission denied: " + permissionHint(info, statErr)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connect: connection refused: the socket exists but no process accepts connections on it (the driver stopped, or left its socket behind)"
	case errors.Is(err, syscall.EAGAIN) || isTimeout(err):
		return "connect: " + osErrorText(err) + ": the driver does not accept connections (yet)"
	default:
		return osErrorText(err)
	}
}

// permissionHint says who owns the socket and who this process is: a
// connect needs write permission on the socket, and a root driver's socket
// (srwxr-xr-x root) lets only root write.
func permissionHint(info fs.FileInfo, statErr error) string {
	self := fmt.Sprintf("this process runs as uid %d gid %d", os.Geteuid(), os.Getegid())
	if groups, err := os.Getgroups(); err == nil && len(groups) > 0 {
		self += fmt.Sprintf(" (groups %s)", strings.ReplaceAll(strings.Trim(fmt.Sprint(groups), "[]"), " ", ","))
	}
	if statErr != nil {
		return self + ", and may not search a directory on the socket's path"
	}
	owner := ""
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		owner = fmt.Sprintf(", owned by uid %d gid %d", st.Uid, st.Gid)
	}
	return fmt.Sprintf("the socket is %s%s and %s; connecting needs write permission on the socket: run the resizer as the socket's owner, or have the driver make the socket writable by a group the resizer is in",
		info.Mode(), owner, self)
}

// osErrorText is the innermost error's text: "permission denied" rather
// than "dial unix /csi/csi.sock: connect: permission denied".
func osErrorText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	if isTimeout(err) {
		return "timed out"
	}
	return err.Error()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// kindOf names what a path that is not a socket is.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	default:
		return "a file of mode " + m.String()
	}
}

// dialInterval is how often a socket that cannot be opened is tried again:
// a driver that starts late is connected to within this time.
const dialInterval = 500 * time.Millisecond

// Bounds of the gap between two log lines of one unchanged reason.
const (
	firstRepeat = 2 * time.Second
	maxRepeat   = time.Minute
)

// awaitSocket dials the unix socket at path until it accepts a connection
// or ctx ends. Every failure goes to waiting (for /readyz). The log says
// each new reason at once, at the default verbosity, and an unchanged one
// again after 2 s, 4 s, 8 s... and then every minute.
func awaitSocket(ctx context.Context, address, path string, waiting func(error)) error {
	logger := klog.FromContext(ctx)
	ticker := time.NewTicker(dialInterval)
	defer ticker.Stop()
	var (
		repeat  logRepeat
		lastErr error
	)
	for {
		err := dialSocket(address, path, dialInterval)
		if err == nil {
			if lastErr != nil {
				logger.Info("The CSI driver's socket accepts connections now", "address", address)
			}
			return nil
		}
		lastErr = err
		waiting(err)
		if repeat.due(time.Now(), err.Error()) {
			logger.Error(err, "Waiting for the CSI driver's socket", "address", address)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (gave up: %w)", lastErr, ctx.Err())
		case <-ticker.C:
		}
	}
}

// logRepeat spaces the log lines of one unchanged reason: a new reason is
// logged at once, the same one again after a gap that doubles up to
// maxRepeat.
type logRepeat struct {
	reason string
	next   time.Time
	gap    time.Duration
}

// due tells whether reason is to be logged at now, and notes that it is.
func (r *logRepeat) due(now time.Time, reason string) bool {
	switch {
	case reason != r.reason:
		r.reason, r.gap = reason, firstRepeat
	case now.Before(r.next):
		return false
	default:
		r.gap = min(2*r.gap, maxRepeat)
	}
	r.next = now.Add(r.gap)
	return true
}
