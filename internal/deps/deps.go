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

// Package deps pins the dependencies while the tree is being built. Temporary.
package deps

import (
	_ "github.com/container-storage-interface/spec/lib/go/csi"
	_ "github.com/kubernetes-csi/csi-lib-utils/accessmodes"
	_ "github.com/kubernetes-csi/csi-lib-utils/connection"
	_ "github.com/kubernetes-csi/csi-lib-utils/metrics"
	_ "github.com/kubernetes-csi/csi-lib-utils/protosanitizer"
	_ "github.com/kubernetes-csi/csi-lib-utils/rpc"
	_ "github.com/kubernetes-csi/csi-lib-utils/standardflags"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "google.golang.org/grpc"
	_ "google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/credentials/insecure"
	_ "google.golang.org/grpc/status"
	_ "google.golang.org/protobuf/types/known/wrapperspb"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/api/storage/v1"
	_ "k8s.io/apimachinery/pkg/api/errors"
	_ "k8s.io/apimachinery/pkg/api/meta"
	_ "k8s.io/apimachinery/pkg/api/resource"
	_ "k8s.io/apimachinery/pkg/util/sets"
	_ "k8s.io/apimachinery/pkg/util/strategicpatch"
	_ "k8s.io/apimachinery/pkg/util/validation"
	_ "k8s.io/apimachinery/pkg/util/wait"
	_ "k8s.io/client-go/informers/core/v1"
	_ "k8s.io/client-go/informers/storage/v1"
	_ "k8s.io/client-go/kubernetes"
	_ "k8s.io/client-go/kubernetes/fake"
	_ "k8s.io/client-go/kubernetes/scheme"
	_ "k8s.io/client-go/listers/core/v1"
	_ "k8s.io/client-go/rest"
	_ "k8s.io/client-go/testing"
	_ "k8s.io/client-go/tools/cache"
	_ "k8s.io/client-go/tools/clientcmd"
	_ "k8s.io/client-go/tools/leaderelection"
	_ "k8s.io/client-go/tools/leaderelection/resourcelock"
	_ "k8s.io/client-go/tools/record"
	_ "k8s.io/client-go/util/workqueue"
	_ "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/featuregate"
	_ "k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics"
	_ "k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/workqueue"
	_ "k8s.io/component-base/metrics/testutil"
	_ "k8s.io/klog/v2"
	_ "k8s.io/klog/v2/ktesting"
	_ "k8s.io/utils/clock"
	_ "k8s.io/utils/clock/testing"
	_ "k8s.io/utils/ptr"
)
