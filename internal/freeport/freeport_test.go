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

package freeport

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// childEnv makes the test binary a child that takes ports and holds them
// until its stdin closes.
const childEnv = "FREEPORT_TEST_CHILD"

func TestMain(m *testing.M) {
	if n, err := strconv.Atoi(os.Getenv(childEnv)); err == nil {
		next, _ = portRange() // every child searches from the same place
		ports, err := GetN(n)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println(strings.Trim(fmt.Sprint(ports), "[]"))
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestProcessesGetDistinctPorts runs three processes that take ports at
// the same time, and this one, all searching from the same port: no port
// is handed out twice, each is free, and none is in the kernel's ephemeral
// range.
func TestProcessesGetDistinctPorts(t *testing.T) {
	const perChild = 40
	seen := map[int]string{}
	for c := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+strconv.Itoa(perChild))
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatalf("child %d: %v", c, err)
		}
		fields := strings.Fields(line)
		if len(fields) != perChild {
			t.Fatalf("child %d said %q, want %d ports", c, line, perChild)
		}
		for _, f := range fields {
			port, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("child %d said %q", c, line)
			}
			record(t, seen, port, fmt.Sprintf("child %d", c))
		}
	}
	mu.Lock()
	next, _ = portRange()
	mu.Unlock()
	mine, err := GetN(perChild)
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range mine {
		record(t, seen, port, "this process")
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			t.Errorf("port %d handed out but not free: %v", port, err)
			continue
		}
		l.Close()
	}
	if low, high, err := ephemeralRange(); err == nil {
		for port, who := range seen {
			if port >= low && port <= high {
				t.Errorf("%s got port %d, in the ephemeral range %d-%d", who, port, low, high)
			}
		}
	}
}

// TestSkipsPortsInUse holds the port that would be handed out next: it is
// skipped.
func TestSkipsPortsInUse(t *testing.T) {
	mu.Lock()
	low, _ := portRange()
	if next == 0 {
		next = low
	}
	busy := next
	mu.Unlock()
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(busy)))
	if err != nil {
		t.Skipf("port %d is taken already: %v", busy, err)
	}
	defer l.Close()
	port, err := Get()
	if err != nil {
		t.Fatal(err)
	}
	if port == busy {
		t.Errorf("Get = %d, a port something listens on", port)
	}
}

func record(t *testing.T, seen map[int]string, port int, who string) {
	t.Helper()
	if other, ok := seen[port]; ok {
		t.Errorf("port %d handed to %s and to %s", port, other, who)
	}
	seen[port] = who
}
