{{/*
The resizer container, for this chart's standalone Deployment and for driver
charts. Everything here reads only the context it is given:

  .Values   the resizer values (this chart's values, or a driver chart's
            .Values.resizer when it depends on this chart with alias "resizer")
  .Release  for the default leader election namespace (optional: without it
            the flag is left out and the binary uses the pod's namespace)
  .Chart    for the default image tag, its AppVersion (optional when
            .Values.image.tag is set)

A driver chart includes it in its controller pod's container list:

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
csi-resizer.args: the resizer's arguments as a YAML list. The generated
arguments are collected in a dict keyed by flag name; an additional argument
whose flag name is a key replaces that entry (keeping its place), every other
additional argument is appended in its order.
*/}}
{{- define "csi-resizer.args" -}}
{{- $v := .Values -}}
{{- $le := $v.leaderElection | default dict -}}
{{- $metrics := $v.metrics | default dict -}}
{{- $args := dict -}}
{{- $_ := set $args "csi-address" (printf "--csi-address=%s" (include "csi-resizer.value" (list $v "csiAddress" "/csi/csi.sock"))) -}}
{{- $_ = set $args "v" (printf "--v=%s" (include "csi-resizer.value" (list $v "logLevel" 2))) -}}
{{- $_ = set $args "timeout" (printf "--timeout=%s" (include "csi-resizer.value" (list $v "timeout" "10s"))) -}}
{{- $_ = set $args "workers" (printf "--workers=%s" (include "csi-resizer.value" (list $v "workers" 10))) -}}
{{- $_ = set $args "kube-api-qps" (printf "--kube-api-qps=%s" (include "csi-resizer.value" (list $v "kubeApiQps" 5))) -}}
{{- $_ = set $args "kube-api-burst" (printf "--kube-api-burst=%s" (include "csi-resizer.value" (list $v "kubeApiBurst" 10))) -}}
{{- $_ = set $args "handle-volume-inuse-error" (printf "--handle-volume-inuse-error=%s" (include "csi-resizer.enabled" (list $v "handleVolumeInUseError" true))) -}}
{{- with $v.featureGates -}}
{{- $gates := list -}}
{{- range $name, $on := . -}}
{{- $gates = append $gates (printf "%s=%v" $name $on) -}}
{{- end -}}
{{- $_ = set $args "feature-gates" (printf "--feature-gates=%s" (join "," $gates)) -}}
{{- end -}}
{{- with include "csi-resizer.value" (list $v "retryIntervalStart" "") -}}
{{- $_ = set $args "retry-interval-start" (printf "--retry-interval-start=%s" .) -}}
{{- end -}}
{{- with include "csi-resizer.value" (list $v "retryIntervalMax" "") -}}
{{- $_ = set $args "retry-interval-max" (printf "--retry-interval-max=%s" .) -}}
{{- end -}}
{{- if eq (include "csi-resizer.enabled" (list $le "enabled" true)) "true" -}}
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
{{- with $le.labels -}}
{{- $labels := list -}}
{{- range $key, $value := . -}}
{{- $labels = append $labels (printf "%s:%v" $key $value) -}}
{{- end -}}
{{- $_ = set $args "leader-election-labels" (printf "--leader-election-labels=%s" (join "," $labels)) -}}
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
{{- if and $name (hasKey $args $name) -}}
{{- $_ = set $args $name (toString .) -}}
{{- else -}}
{{- $extra = append $extra (toString .) -}}
{{- end -}}
{{- end -}}
{{- $list := list -}}
{{- range list "csi-address" "v" "timeout" "workers" "kube-api-qps" "kube-api-burst" "handle-volume-inuse-error" "feature-gates" "retry-interval-start" "retry-interval-max" "leader-election" "leader-election-namespace" "leader-election-lease-duration" "leader-election-renew-deadline" "leader-election-retry-period" "leader-election-labels" "http-endpoint" -}}
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
{{- $leaderElection := eq (include "csi-resizer.enabled" (list ($v.leaderElection | default dict) "enabled" true)) "true" -}}
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
