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
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// scrape fetches /metrics once as Prometheus does, with gzip accepted (the
// handler then compresses, which is part of the cost), and returns the
// time from request to last byte, the bytes on the wire and the text.
// Asking for the encoding ourselves keeps the transport from decompressing
// it, so that the wire size is known.
func (r *rig) scrape(ctx context.Context) (time.Duration, int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.httpAddr+"/metrics", nil)
	if err != nil {
		return 0, 0, nil, err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil {
		return 0, 0, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, nil, fmt.Errorf("/metrics answered %d", resp.StatusCode)
	}
	text, err := decode(body, resp.Header.Get("Content-Encoding"))
	return took, len(body), text, err
}

// decode returns the text of a response body in encoding.
func decode(body []byte, encoding string) ([]byte, error) {
	switch encoding {
	case "", "identity":
		return body, nil
	case "gzip":
		z, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(z)
	}
	return nil, fmt.Errorf("/metrics answered in encoding %q, not asked for", encoding)
}
