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

// Package freeport hands the tests loopback TCP ports for servers they start
// later (kube-apiserver, etcd, kubelet, the resizer's --http-endpoint), so
// that no port is handed out and then taken by someone else before the
// server binds it.
//
// A port asked for with net.Listen("tcp", ":0") comes from the kernel's
// ephemeral range, where any process's next outgoing connection, or listen
// on port 0, may take it at once: a test package that started kube-apiserver
// on such a port failed with "bind: address already in use" when the e2e
// package ran beside it. So the ports handed out here are below the
// ephemeral range, where the kernel never picks one by itself, and each is
// locked with flock(2) on a file in a directory that every test process of
// this repository shares, for the rest of the process's life (the lock goes
// with the process), so two test processes never hand out one port. A port
// is also checked to be free when it is handed out, for servers left behind
// by a process that died.
package freeport

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// first is the lowest port handed out: above the well-known ports of the
// components the tests run (etcd's 2379, kube-apiserver's 6443, kubelet's
// 10250, ...).
const first = 15000

var (
	mu sync.Mutex
	// next is where the search for the next port starts.
	next int
	// held keeps the lock files open, and so locked, for the process's life.
	held []*os.File
)

// Get returns a loopback TCP port that is free and that no other test
// process of this repository is handed.
func Get() (int, error) {
	ports, err := GetN(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// GetN returns n distinct ports as Get does.
func GetN(n int) ([]int, error) {
	mu.Lock()
	defer mu.Unlock()
	low, high := portRange()
	dir := filepath.Join(os.TempDir(), "csi-resizer-test-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("freeport: %w", err)
	}
	if next == 0 {
		// Processes that start together search from different places.
		next = low + os.Getpid()%(high-low)
	}
	ports := make([]int, 0, n)
	for tried := 0; len(ports) < n; tried++ {
		if tried > high-low {
			return nil, fmt.Errorf("freeport: no free port in %d-%d", low, high)
		}
		port := next
		next++
		if next > high {
			next = low
		}
		if take(dir, port) {
			ports = append(ports, port)
		}
	}
	return ports, nil
}

// take locks port for this process when no other test process holds it and
// nothing listens on it.
func take(dir string, port int) bool {
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return false
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		f.Close()
		return false
	}
	l.Close()
	held = append(held, f)
	return true
}

// portRange is the range of ports handed out: below the kernel's ephemeral
// range, or above it when it starts too low to leave room below.
func portRange() (low, high int) {
	ephLow, ephHigh, err := ephemeralRange()
	switch {
	case err != nil:
		return first, 32767 // Linux's default range starts at 32768
	case ephLow-1-first >= 1000:
		return first, ephLow - 1
	default:
		return ephHigh + 1, 65535
	}
}

// ephemeralRange reads the kernel's ephemeral port range.
func ephemeralRange() (low, high int, err error) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0, err
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return 0, 0, errors.New("ip_local_port_range: want two numbers")
	}
	if low, err = strconv.Atoi(fields[0]); err != nil {
		return 0, 0, err
	}
	high, err = strconv.Atoi(fields[1])
	return low, high, err
}
