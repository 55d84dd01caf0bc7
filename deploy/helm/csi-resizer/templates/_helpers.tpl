{{/*
Helpers of the chart's own objects: names and labels. The resizer container
and its arguments are in _container.tpl.
*/}}

{{/* Name of the chart, overridable with nameOverride. */}}
{{- define "csi-resizer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Name of the namespaced objects the release owns (Deployment, Service,
ServiceMonitor): the release name, with the chart name appended unless the
release name contains it already. fullnameOverride replaces it.
*/}}
{{- define "csi-resizer.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Chart name and version, for the helm.sh/chart label. */}}
{{- define "csi-resizer.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "csi-resizer.labels" -}}
helm.sh/chart: {{ include "csi-resizer.chart" . }}
{{ include "csi-resizer.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Labels that select the standalone pods. */}}
{{- define "csi-resizer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "csi-resizer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
Name of the ServiceAccount the RBAC binds and the standalone pods run as:
upstream's "csi-resizer" unless serviceAccount.name says otherwise.
*/}}
{{- define "csi-resizer.serviceAccountName" -}}
{{- .Values.serviceAccount.name | default "csi-resizer" -}}
{{- end -}}

{{/*
Namespace of the leader election Lease, and so of the Role and RoleBinding
that allow it: leaderElection.namespace, else the release namespace.
*/}}
{{- define "csi-resizer.leaseNamespace" -}}
{{- .Values.leaderElection.namespace | default .Release.Namespace -}}
{{- end -}}

{{/*
Whether the metrics Service is rendered: asked for, or implied by the
ServiceMonitor (which scrapes through it). Renders "true" or nothing.
*/}}
{{- define "csi-resizer.metricsService" -}}
{{- if or .Values.metrics.service.enabled .Values.metrics.serviceMonitor.enabled -}}
true
{{- end -}}
{{- end -}}

{{/*
Labels that select this resizer's series in Prometheus, for the alerts:
monitoring.prometheusRule.selector, else the namespace and container labels
the Prometheus Operator gives the targets of a ServiceMonitor or PodMonitor.
Equality matchers only, so that absent() and the aggregations carry the same
labels and an alert keeps its identity when its series come and go.
*/}}
{{- define "csi-resizer.ruleSelector" -}}
{{- $sel := .Values.monitoring.prometheusRule.selector | default (dict "namespace" .Release.Namespace "container" "csi-resizer") -}}
{{- range $k, $v := $sel }}
{{- if not (regexMatch "^[a-zA-Z_][a-zA-Z0-9_]*$" $k) }}
{{- fail (printf "monitoring.prometheusRule.selector: %q is not a Prometheus label name." $k) }}
{{- end }}
{{- end }}
{{- toJson $sel -}}
{{- end -}}

{{/* The selector as PromQL matchers: container="csi-resizer",namespace="x". */}}
{{- define "csi-resizer.ruleMatchers" -}}
{{- $sel := include "csi-resizer.ruleSelector" . | fromJson -}}
{{- $out := list -}}
{{- range $k := keys $sel | sortAlpha }}
{{- $out = append $out (printf "%s=%q" $k (toString (get $sel $k))) }}
{{- end }}
{{- join "," $out -}}
{{- end -}}

{{/* The selector's label names, for by (...): container, namespace; and node with nodeDeployment, whose instances each report their node's claims. */}}
{{- define "csi-resizer.ruleGroupBy" -}}
{{- $by := include "csi-resizer.ruleSelector" . | fromJson | keys | sortAlpha -}}
{{- if eq (include "csi-resizer.nodeDeployment" .Values) "true" }}{{ $by = append $by "node" }}{{ end -}}
{{- join ", " $by -}}
{{- end -}}
