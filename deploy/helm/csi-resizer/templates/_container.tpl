{{/*
The resizer container, for this chart's standalone Deployment and for driver
charts. Everything here reads only the context it is given:

  .Values   the resizer values (this chart's values, or a driver chart's
            .Values.resizer when it depends on this chart with alias "resizer")
  .Release  for the default leader election namespace (optional: without it
            the flag is left out and the binary uses the pod's namespace)
  .Chart    for the default image tag, its AppVersion (optional when
            .Values.image.tag is set)

A driver chart includes it in its controller pod's container list (or, with
nodeDeployment.enabled, in its node DaemonSet's):

  containers:
    {{- include "csi-resizer.container" (dict "Values" .Values.resizer "Release" .Release "Chart" .Subcharts.resizer.Chart) | nindent 8 }}

Missing values fall back to this chart's defaults, so a partial values map
works too.
*/}}

{{/*
csi-resizer.value: (list map key default) → the value of key in map, or
default when the key is missing, null or an empty string. Unlike the
"default" function it keeps false and 0.
*/}}
{{- define "csi-resizer.value" -}}
{{- $m := index . 0 | default dict -}}
{{- $val := index $m (index . 1) -}}
{{- if or (kindIs "invalid" $val) (and (kindIs "string" $val) (eq $val "")) -}}
{{- index . 2 -}}
{{- else -}}
{{- $val -}}
{{- end -}}
{{- end -}}

{{/* csi-resizer.enabled: (list map key default) → "true" or "false". */}}
{{- define "csi-resizer.enabled" -}}
{{- eq (include "csi-resizer.value" .) "true" -}}
{{- end -}}

{{/*
csi-resizer.nodeDeployment: (the resizer values) → "true" when the resizer
runs one instance per node (nodeDeployment.enabled), else "false".
*/}}
{{- define "csi-resizer.nodeDeployment" -}}
{{- include "csi-resizer.enabled" (list (.nodeDeployment | default dict) "enabled" false) -}}
{{- end -}}

{{/*
csi-resizer.leaderElection: (the resizer values) → "true" when the resizer
runs with leader election, else "false". leaderElection.enabled left empty
means on, except with nodeDeployment.enabled, where no instance leads (the
binary refuses --node-deployment with --leader-election): set true there, it
fails the render.
*/}}
{{- define "csi-resizer.leaderElection" -}}
{{- $le := .leaderElection | default dict -}}
{{- if eq (include "csi-resizer.nodeDeployment" .) "true" -}}
{{- if eq (include "csi-resizer.enabled" (list $le "enabled" false)) "true" -}}
{{- fail "nodeDeployment.enabled=true contradicts leaderElection.enabled=true: with --node-deployment every node runs its own resizer for that node's volumes, so there is no leader to elect (the resizer refuses the two flags together). Leave leaderElection.enabled empty, or set it false." -}}
{{- end -}}
false
{{- else -}}
{{- include "csi-resizer.enabled" (list $le "enabled" true) -}}
{{- end -}}
{{- end -}}

{{/*
csi-resizer.leases: (the resizer values) → "true" when the resizer keeps a
Lease, so that the Role and RoleBinding for leases are needed: the leader
election Lease, or with nodeDeployment.enabled each instance's node Lease.
*/}}
{{- define "csi-resizer.leases" -}}
{{- or (eq (include "csi-resizer.leaderElection" .) "true") (eq (include "csi-resizer.nodeDeployment" .) "true") -}}
{{- end -}}

{{/*
csi-resizer.flagName: an argument → its flag name ("--workers=3" and
"-workers" → "workers"), or nothing when it is not a flag.
*/}}
{{- define "csi-resizer.flagName" -}}
{{- $arg := toString . -}}
{{- if hasPrefix "-" $arg -}}
{{- $arg | trimPrefix "-" | trimPrefix "-" | splitList "=" | first -}}
{{- end -}}
{{- end -}}

{{/*
csi-resizer.gates: (the resizer values) → the feature gates the resizer gets,
as a JSON object of name → value. It merges featureGates, the --feature-gates
of additionalArgs (which win for the same gate) and, with
volumeModification.enabled=false, VolumeAttributesClass=false, so that the
container gets one --feature-gates and the gate agrees with the ClusterRole.
*/}}
{{- define "csi-resizer.gates" -}}
{{- $v := . -}}
{{- $gates := dict -}}
{{- range $name, $on := $v.featureGates -}}
{{- $_ := set $gates $name (toString $on) -}}
{{- end -}}
{{- range $v.additionalArgs -}}
{{- if eq (include "csi-resizer.flagName" .) "feature-gates" -}}
{{- range (toString . | splitList "=" | rest | join "=" | splitList ",") -}}
{{- $pair := splitList "=" (trim .) -}}
{{- if eq (len $pair) 2 -}}
{{- $_ := set $gates (trim (first $pair)) (trim (last $pair)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if ne (include "csi-resizer.enabled" (list ($v.volumeModification | default dict) "enabled" true)) "true" -}}
{{- if has (lower (get $gates "VolumeAttributesClass")) (list "true" "t" "1") -}}
{{- fail "volumeModification.enabled=false contradicts the feature gate VolumeAttributesClass=true (featureGates or additionalArgs): remove the gate, or set volumeModification.enabled=true" -}}
{{- end -}}
{{- $_ := set $gates "VolumeAttributesClass" "false" -}}
{{- end -}}
{{- toJson $gates -}}
{{- end -}}

{{/*
csi-resizer.featureGates: (the resizer values) → the value of --feature-gates,
"A=true,B=false" sorted by name, or nothing.
*/}}
{{- define "csi-resizer.featureGates" -}}
{{- $list := list -}}
{{- range $name, $on := include "csi-resizer.gates" . | fromJson -}}
{{- $list = append $list (printf "%s=%s" $name $on) -}}
{{- end -}}
{{- join "," $list -}}
{{- end -}}

{{/*
csi-resizer.volumeModification: (the resizer values) → "true" when the
resizer may modify volumes (volumeModification.enabled, and the
VolumeAttributesClass gate not set false), else "false". The ClusterRole
gets the volumeattributesclasses rule only then.
*/}}
{{- define "csi-resizer.volumeModification" -}}
{{- $gate := get (include "csi-resizer.gates" . | fromJson) "VolumeAttributesClass" | toString | lower -}}
{{- not (has $gate (list "false" "f" "0")) -}}
{{- end -}}

{{/*
csi-resizer.timeoutFlags: (the resizer values) → "true" when the resizer
gets --resize-timeout and --modify-timeout instead of --timeout: one of them
is set in the values or in additionalArgs. An explicit --timeout would
override both, so it is left out then, and an unset one is passed as timeout.
*/}}
{{- define "csi-resizer.timeoutFlags" -}}
{{- $v := . -}}
{{- $set := or (include "csi-resizer.value" (list $v "resizeTimeout" "")) (include "csi-resizer.value" (list $v "modifyTimeout" "")) -}}
{{- range $v.additionalArgs -}}
{{- if has (include "csi-resizer.flagName" .) (list "resize-timeout" "modify-timeout") -}}
{{- $set = true -}}
{{- end -}}
{{- end -}}
{{- ternary "true" "false" (not (not $set)) -}}
{{- end -}}

{{/*
csi-resizer.flagOn: an argument → "true" when it turns a boolean flag on
("--name", "--name=true", "=t", "=1"), else "false".
*/}}
{{- define "csi-resizer.flagOn" -}}
{{- $parts := splitList "=" (toString .) -}}
{{- or (eq (len $parts) 1) (has (lower (last $parts)) (list "true" "t" "1")) -}}
{{- end -}}

{{/*
csi-resizer.args: the resizer's arguments as a YAML list. The generated
arguments are collected in a dict keyed by flag name; an additional argument
whose flag name is a key replaces that entry (keeping its place), every other
additional argument is appended in its order. --feature-gates is the
exception: its gates are merged into ours (see csi-resizer.featureGates).
With nodeDeployment.enabled the resizer gets --node-deployment and none of
the leader election flags but --leader-election-namespace (only when
leaderElection.namespace is set) and --leader-election-labels, which place
and label the node Lease.
*/}}
{{- define "csi-resizer.args" -}}
{{- $v := .Values -}}
{{- $le := $v.leaderElection | default dict -}}
{{- $node := eq (include "csi-resizer.nodeDeployment" $v) "true" -}}
{{- range $v.additionalArgs -}}
{{- $name := include "csi-resizer.flagName" . -}}
{{- if and $node (eq $name "leader-election") (eq (include "csi-resizer.flagOn" .) "true") -}}
{{- fail (printf "nodeDeployment.enabled=true contradicts %s in additionalArgs: the resizer refuses --node-deployment with --leader-election (every node runs its own resizer, there is no leader to elect). Remove it." .) -}}
{{- end -}}
{{- if and (not $node) (eq $name "node-deployment") (eq (include "csi-resizer.flagOn" .) "true") -}}
{{- fail (printf "%s in additionalArgs: set nodeDeployment.enabled=true instead, which also gives the container NODE_NAME, turns leader election off and grants the RBAC on nodes (and, standalone, runs a DaemonSet)." .) -}}
{{- end -}}
{{- end -}}
{{- $metrics := $v.metrics | default dict -}}
{{- $args := dict -}}
{{- $_ := set $args "csi-address" (printf "--csi-address=%s" (include "csi-resizer.value" (list $v "csiAddress" "/csi/csi.sock"))) -}}
{{- $_ = set $args "v" (printf "--v=%s" (include "csi-resizer.value" (list $v "logLevel" 2))) -}}
{{- $timeout := include "csi-resizer.value" (list $v "timeout" "10s") -}}
{{- if eq (include "csi-resizer.timeoutFlags" $v) "true" -}}
{{- $_ = set $args "resize-timeout" (printf "--resize-timeout=%s" (include "csi-resizer.value" (list $v "resizeTimeout" $timeout))) -}}
{{- $_ = set $args "modify-timeout" (printf "--modify-timeout=%s" (include "csi-resizer.value" (list $v "modifyTimeout" $timeout))) -}}
{{- else -}}
{{- $_ = set $args "timeout" (printf "--timeout=%s" $timeout) -}}
{{- end -}}
{{- $_ = set $args "workers" (printf "--workers=%s" (include "csi-resizer.value" (list $v "workers" 10))) -}}
{{- $_ = set $args "kube-api-qps" (printf "--kube-api-qps=%s" (include "csi-resizer.value" (list $v "kubeApiQps" 5))) -}}
{{- $_ = set $args "kube-api-burst" (printf "--kube-api-burst=%s" (include "csi-resizer.value" (list $v "kubeApiBurst" 10))) -}}
{{- $_ = set $args "handle-volume-inuse-error" (printf "--handle-volume-inuse-error=%s" (include "csi-resizer.enabled" (list $v "handleVolumeInUseError" true))) -}}
{{- with include "csi-resizer.featureGates" $v -}}
{{- $_ = set $args "feature-gates" (printf "--feature-gates=%s" .) -}}
{{- end -}}
{{- with include "csi-resizer.value" (list $v "retryIntervalStart" "") -}}
{{- $_ = set $args "retry-interval-start" (printf "--retry-interval-start=%s" .) -}}
{{- end -}}
{{- with include "csi-resizer.value" (list $v "retryIntervalMax" "") -}}
{{- $_ = set $args "retry-interval-max" (printf "--retry-interval-max=%s" .) -}}
{{- end -}}
{{- if eq (include "csi-resizer.enabled" (list $v "extraModifyMetadata" false)) "true" -}}
{{- $_ = set $args "extra-modify-metadata" "--extra-modify-metadata" -}}
{{- end -}}
{{- $leaseLabels := "" -}}
{{- with $le.labels -}}
{{- $labels := list -}}
{{- range $key, $value := . -}}
{{- $labels = append $labels (printf "%s:%v" $key $value) -}}
{{- end -}}
{{- $leaseLabels = printf "--leader-election-labels=%s" (join "," $labels) -}}
{{- end -}}
{{- if $node -}}
{{- /* No leader: the node Lease goes to the pod's namespace unless leaderElection.namespace says otherwise. */ -}}
{{- $_ = set $args "node-deployment" "--node-deployment" -}}
{{- with include "csi-resizer.value" (list $le "namespace" "") -}}
{{- $_ = set $args "leader-election-namespace" (printf "--leader-election-namespace=%s" .) -}}
{{- end -}}
{{- with $leaseLabels -}}
{{- $_ = set $args "leader-election-labels" . -}}
{{- end -}}
{{- else if eq (include "csi-resizer.leaderElection" $v) "true" -}}
{{- $_ = set $args "leader-election" "--leader-election" -}}
{{- $ns := include "csi-resizer.value" (list $le "namespace" "") -}}
{{- if and (not $ns) .Release -}}
{{- $ns = .Release.Namespace -}}
{{- end -}}
{{- with $ns -}}
{{- $_ = set $args "leader-election-namespace" (printf "--leader-election-namespace=%s" .) -}}
{{- end -}}
{{- $_ = set $args "leader-election-lease-duration" (printf "--leader-election-lease-duration=%s" (include "csi-resizer.value" (list $le "leaseDuration" "15s"))) -}}
{{- $_ = set $args "leader-election-renew-deadline" (printf "--leader-election-renew-deadline=%s" (include "csi-resizer.value" (list $le "renewDeadline" "10s"))) -}}
{{- $_ = set $args "leader-election-retry-period" (printf "--leader-election-retry-period=%s" (include "csi-resizer.value" (list $le "retryPeriod" "5s"))) -}}
{{- with $leaseLabels -}}
{{- $_ = set $args "leader-election-labels" . -}}
{{- end -}}
{{- end -}}
{{- $port := int (include "csi-resizer.value" (list $metrics "port" 8080)) -}}
{{- if gt $port 0 -}}
{{- $_ = set $args "http-endpoint" (printf "--http-endpoint=:%d" $port) -}}
{{- end -}}
{{- /* Additional arguments: replace ours by flag name, or append. */ -}}
{{- $extra := list -}}
{{- range $v.additionalArgs -}}
{{- $name := include "csi-resizer.flagName" . -}}
{{- if eq $name "feature-gates" -}}
{{- /* Merged into ours by csi-resizer.featureGates. */ -}}
{{- else if and $name (hasKey $args $name) -}}
{{- $_ = set $args $name (toString .) -}}
{{- else -}}
{{- $extra = append $extra (toString .) -}}
{{- end -}}
{{- end -}}
{{- $list := list -}}
{{- range list "csi-address" "v" "timeout" "resize-timeout" "modify-timeout" "workers" "kube-api-qps" "kube-api-burst" "handle-volume-inuse-error" "feature-gates" "retry-interval-start" "retry-interval-max" "extra-modify-metadata" "node-deployment" "leader-election" "leader-election-namespace" "leader-election-lease-duration" "leader-election-renew-deadline" "leader-election-retry-period" "leader-election-labels" "http-endpoint" -}}
{{- if hasKey $args . -}}
{{- $list = append $list (get $args .) -}}
{{- end -}}
{{- end -}}
{{- concat $list $extra | toYaml -}}
{{- end -}}

{{/* csi-resizer.container: the resizer container, a YAML list item. */}}
{{- define "csi-resizer.container" -}}
{{- $v := .Values -}}
{{- $image := $v.image | default dict -}}
{{- $metrics := $v.metrics | default dict -}}
{{- $socket := $v.socketVolume | default dict -}}
{{- $leaderElection := eq (include "csi-resizer.leaderElection" $v) "true" -}}
{{- $node := eq (include "csi-resizer.nodeDeployment" $v) "true" -}}
{{- $tag := include "csi-resizer.value" (list $image "tag" "") -}}
{{- if and (not $tag) .Chart -}}
{{- $tag = .Chart.AppVersion -}}
{{- end -}}
{{- if not $tag -}}
{{- fail "csi-resizer.container: set image.tag of the resizer (or pass the csi-resizer chart as \"Chart\", whose appVersion is the default tag)" -}}
{{- end -}}
{{- $port := int (include "csi-resizer.value" (list $metrics "port" 8080)) -}}
{{- $portName := include "csi-resizer.value" (list $metrics "portName" "http-metrics") -}}
- name: csi-resizer
  image: {{ printf "%s:%s" (include "csi-resizer.value" (list $image "repository" "ghcr.io/csi-resizer/csi-resizer")) $tag | quote }}
  imagePullPolicy: {{ include "csi-resizer.value" (list $image "pullPolicy" "IfNotPresent") }}
  args:
    {{- include "csi-resizer.args" . | nindent 4 }}
  {{- if $node }}
  # --node-deployment: the node this instance handles the volumes of.
  env:
    - name: NODE_NAME
      valueFrom:
        fieldRef:
          fieldPath: spec.nodeName
  {{- end }}
  {{- if gt $port 0 }}
  ports:
    - name: {{ $portName }}
      containerPort: {{ $port }}
      protocol: TCP
  livenessProbe:
    httpGet:
      path: {{ ternary "/healthz/leader-election" "/healthz" $leaderElection }}
      port: {{ $portName }}
    {{- with $v.livenessProbe }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  readinessProbe:
    httpGet:
      path: /readyz
      port: {{ $portName }}
    {{- with $v.readinessProbe }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
  {{- with $v.resources }}
  resources:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $v.securityContext }}
  securityContext:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  terminationMessagePolicy: FallbackToLogsOnError
  volumeMounts:
    - name: {{ include "csi-resizer.value" (list $socket "name" "socket-dir") }}
      mountPath: {{ include "csi-resizer.value" (list $socket "mountPath" "/csi") }}
{{- end -}}
