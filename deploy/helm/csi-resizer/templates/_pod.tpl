{{/*
csi-resizer.podTemplate: the pod template of the standalone workload (the
Deployment, or with nodeDeployment.enabled the DaemonSet): the resizer and
the driver container, sharing the socket in an emptyDir.
*/}}
{{- define "csi-resizer.podTemplate" -}}
{{- if not .Values.driver.image }}
{{- fail "standalone.enabled=true needs a driver container: set driver.image (and driver.args) to your CSI driver's controller plugin, which serves the socket at csiAddress. To install only the ServiceAccount and RBAC, set standalone.enabled=false and add the resizer to your driver's own controller pod with the named template \"csi-resizer.container\" (see the chart's README)." }}
{{- end -}}
metadata:
  labels:
    {{- include "csi-resizer.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ include "csi-resizer.serviceAccountName" . }}
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- range . }}
    - name: {{ if kindIs "string" . }}{{ . }}{{ else }}{{ .name }}{{ end }}
    {{- end }}
  {{- end }}
  {{- with .Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  {{- with .Values.podSecurityContext }}
  securityContext:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  terminationGracePeriodSeconds: {{ int .Values.terminationGracePeriodSeconds }}
  containers:
    {{- include "csi-resizer.container" . | nindent 4 }}
    - name: {{ .Values.driver.name | default "csi-driver" }}
      image: {{ .Values.driver.image | quote }}
      imagePullPolicy: {{ .Values.driver.imagePullPolicy | default "IfNotPresent" }}
      {{- with .Values.driver.command }}
      command:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.driver.args }}
      args:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      env:
        - name: CSI_ENDPOINT
          value: {{ printf "unix://%s" .Values.csiAddress | quote }}
        {{- with .Values.driver.env }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with .Values.driver.resources }}
      resources:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.driver.securityContext }}
      securityContext:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      volumeMounts:
        - name: {{ .Values.socketVolume.name }}
          mountPath: {{ .Values.socketVolume.mountPath }}
        {{- with .Values.driver.volumeMounts }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
  volumes:
    - name: {{ .Values.socketVolume.name }}
      emptyDir: {}
    {{- with .Values.extraVolumes }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
