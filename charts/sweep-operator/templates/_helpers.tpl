{{/* The chart's name, as the app.kubernetes.io/name label. */}}
{{- define "sweep-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's base name: the release name, or release-chart when it lacks the chart's name. */}}
{{- define "sweep-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 55 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 55 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 55 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The manager's objects (Deployment, ServiceAccount, RBAC): sweep-operator-manager for the release sweep-operator, as in config/. */}}
{{- define "sweep-operator.manager" -}}
{{- include "sweep-operator.fullname" . }}-manager
{{- end }}

{{- define "sweep-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sweep-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "sweep-operator.labels" -}}
{{ include "sweep-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* repository:tag, the tag defaulting to the chart's appVersion. */}}
{{- define "sweep-operator.image" -}}
{{- printf "%s:%s" .repository (.tag | default .appVersion) }}
{{- end }}

{{/* The name of the manager's metrics port: https when it is served securely. */}}
{{- define "sweep-operator.metricsPort" -}}
{{- if .Values.metrics.secure }}https{{ else }}http{{ end }}
{{- end }}

{{/* The Secret of the metrics certificate, when metrics are served securely with one. */}}
{{- define "sweep-operator.metricsCertSecret" -}}
{{- if and .Values.metrics.enabled .Values.metrics.secure }}{{ .Values.metrics.certSecretName }}{{ end }}
{{- end }}

{{/* The directory of a file:// store, where its volume is mounted; empty for other stores. */}}
{{- define "sweep-operator.storeDir" -}}
{{- if hasPrefix "file://" .Values.store.url }}{{ trimPrefix "file://" .Values.store.url }}{{ end }}
{{- end }}

{{/* The PersistentVolumeClaim of a file:// store: the given one, or the chart's <release>-store. */}}
{{- define "sweep-operator.storeClaim" -}}
{{- if and (include "sweep-operator.storeDir" .) .Values.store.persistence.enabled }}
{{- .Values.store.persistence.existingClaim | default (printf "%s-store" (include "sweep-operator.fullname" .)) }}
{{- end }}
{{- end }}
