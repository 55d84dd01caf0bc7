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

package ociread

import (
	"fmt"
	"strconv"
	"strings"
)

// Resolve resolves user, "user[:group]" by name or number ("" is root),
// against the contents of an image's /etc/passwd and /etc/group, as runc's
// user.GetExecUser does: e.g. "nonroot" or "65532" to 65532:65532 in the
// resizer's image.
func Resolve(user string, passwd, group []byte) (Identity, error) {
	id := Identity{User: user}
	userPart, groupPart, hasGroup := strings.Cut(strings.TrimSpace(user), ":")
	if userPart == "" {
		userPart = "0"
	}
	entries := fields(passwd, 7)
	uid, numeric := parseID(userPart)
	name := ""
	found := false
	for _, e := range entries {
		if (numeric && e[2] == userPart) || (!numeric && e[0] == userPart) {
			u, ok1 := parseID(e[2])
			g, ok2 := parseID(e[3])
			if !ok1 || !ok2 {
				return Identity{}, fmt.Errorf("/etc/passwd: bad entry for %s", e[0])
			}
			uid, id.GID, name, found = u, g, e[0], true
			break
		}
	}
	if !found && !numeric {
		return Identity{}, fmt.Errorf("user %q: no such user in the image's /etc/passwd", userPart)
	}
	id.UID = uid
	groups := fields(group, 4)
	if hasGroup && groupPart != "" {
		gid, ok := parseID(groupPart)
		if !ok {
			found := false
			for _, g := range groups {
				if g[0] == groupPart {
					if gid, ok = parseID(g[2]); !ok {
						return Identity{}, fmt.Errorf("/etc/group: bad entry for %s", g[0])
					}
					found = true
					break
				}
			}
			if !found {
				return Identity{}, fmt.Errorf("group %q: no such group in the image's /etc/group", groupPart)
			}
		}
		id.GID = gid
	}
	if name != "" {
		for _, g := range groups {
			gid, ok := parseID(g[2])
			if !ok || gid == id.GID {
				continue
			}
			for _, member := range strings.Split(g[3], ",") {
				if member == name {
					id.Groups = append(id.Groups, gid)
				}
			}
		}
	}
	return id, nil
}

// fields splits the lines of a colon-separated file, keeping those with n
// fields.
func fields(data []byte, n int) [][]string {
	var out [][]string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if f := strings.Split(line, ":"); len(f) == n {
			out = append(out, f)
		}
	}
	return out
}

func parseID(s string) (uint32, bool) {
	n, err := strconv.ParseUint(s, 10, 32)
	return uint32(n), err == nil
}
