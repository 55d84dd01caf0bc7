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

package secrets

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// Fetch reads the data of the Secret ref, as strings (as CSI takes them), through the API: the
// resizer does not watch Secrets, so it needs only "get" and holds none between resizes. Errors
// name the Secret, never its data; for a missing Secret apierrors.IsNotFound holds.
func Fetch(ctx context.Context, client kube.Interface, ref Ref) (map[string]string, error) {
	if ref.Namespace == "" || ref.Name == "" {
		return nil, fmt.Errorf("secret %q for %s: both namespace and name are required", ref, ref.use())
	}
	// client-go logs response bodies at V(8) and above, and this response is the Secret: the
	// read gets a logger capped below that level (see quietContext).
	quiet, capped := quietContext(ctx)
	if !capped && klog.FromContext(ctx).V(bodyLogLevel).Enabled() {
		// Fail closed rather than print the Secret: the operator asked for body logging and
		// switched off the contextual logging that lets this one call opt out of it.
		return nil, fmt.Errorf("secret %q for %s not read: at --v=%d and above client-go logs the Secret's data unless the ContextualLogging feature gate is on", ref, ref.use(), bodyLogLevel)
	}
	secret, err := client.CoreV1().Secrets(ref.Namespace).Get(quiet, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("secret %q for %s not found: %w", ref, ref.use(), err)
	}
	if err != nil {
		return nil, fmt.Errorf("get secret %q for %s: %w", ref, ref.use(), err)
	}
	data := make(map[string]string, len(secret.Data))
	for k, v := range secret.Data {
		data[k] = string(v)
	}
	klog.FromContext(ctx).V(4).Info("Read secret for "+ref.use(), "secret", klog.KRef(ref.Namespace, ref.Name), "keys", len(data))
	return data, nil
}

// bodyLogLevel is the verbosity from which client-go's rest.Request logs bodies (logBody in
// k8s.io/client-go/rest/request.go), and so a Secret GET's data; headers (V(7)) and URLs (V(6))
// carry the Secret's name only.
const bodyLogLevel = 8

// quietContext returns ctx with its logger (or klog's) capped below bodyLogLevel, for the call
// that reads a Secret: client-go logs with the request context's logger, so that call's body is
// never logged, whatever --v and --vmodule say. ok is false when the cap cannot be installed:
// with the ContextualLogging gate off, klog ignores loggers in contexts.
func quietContext(ctx context.Context) (quiet context.Context, ok bool) {
	logger := klog.FromContext(ctx)
	capped := klog.New(newBelowSink(logger.GetSink(), bodyLogLevel))
	quiet = klog.NewContext(ctx, capped)
	_, ok = klog.FromContext(quiet).GetSink().(*belowSink)
	return quiet, ok
}

// belowSink passes everything to sink except what is logged at level max or above, which it
// drops, and for which it reports Enabled false so that callers do not even format it.
//
// V levels add up in logr (logger.V(2).V(6) logs at 8), and the sink is asked about the sum, so a
// logger derived from a capped one stays capped.
type belowSink struct {
	sink klog.LogSink
	max  int
}

// callDepthSink is logr.CallDepthLogSink, spelled here because klog re-exports the LogSink type
// but not that interface.
type callDepthSink interface {
	WithCallDepth(depth int) klog.LogSink
}

// callStackHelperSink is logr.CallStackHelperLogSink (ktesting's sinks implement it).
type callStackHelperSink interface {
	GetCallStackHelper() func()
}

func newBelowSink(sink klog.LogSink, maxLevel int) klog.LogSink {
	if sink == nil { // a logr.Discard() logger: nothing to cap
		return nil
	}
	// The wrapper is one more frame between the caller and the sink: tell the sink, so that
	// log lines keep naming the caller's file and line, and --vmodule keeps matching it.
	if cd, ok := sink.(callDepthSink); ok {
		sink = cd.WithCallDepth(1)
	}
	return &belowSink{sink: sink, max: maxLevel}
}

// Init does not pass info on: the wrapped sink was initialised by the logger it came from, and
// klog's sink adds to its depth on every Init.
func (s *belowSink) Init(klog.RuntimeInfo) {}

func (s *belowSink) Enabled(level int) bool {
	return level < s.max && s.sink.Enabled(level)
}

func (s *belowSink) Info(level int, msg string, keysAndValues ...any) {
	if level >= s.max {
		return
	}
	s.sink.Info(level, msg, keysAndValues...)
}

// Error is always passed on, as logr does for errors; client-go never puts bodies in errors of
// successful reads, and the errors of failed reads are Status objects without Secret data.
func (s *belowSink) Error(err error, msg string, keysAndValues ...any) {
	s.sink.Error(err, msg, keysAndValues...)
}

func (s *belowSink) WithValues(keysAndValues ...any) klog.LogSink {
	return &belowSink{sink: s.sink.WithValues(keysAndValues...), max: s.max}
}

func (s *belowSink) WithName(name string) klog.LogSink {
	return &belowSink{sink: s.sink.WithName(name), max: s.max}
}

func (s *belowSink) WithCallDepth(depth int) klog.LogSink {
	if cd, ok := s.sink.(callDepthSink); ok {
		return &belowSink{sink: cd.WithCallDepth(depth), max: s.max}
	}
	return s
}

func (s *belowSink) GetCallStackHelper() func() {
	if h, ok := s.sink.(callStackHelperSink); ok {
		return h.GetCallStackHelper()
	}
	return func() {}
}
