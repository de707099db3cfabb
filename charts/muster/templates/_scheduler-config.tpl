{{/*
The KubeSchedulerConfiguration of the second kube-scheduler. Its extender entries must stay field for
field the same as extender-config/scheduler-config.yaml (scheduler-config-insecure.yaml with
tls.insecureUnauthenticatedVerbs); deploy-tests checks this. Field reasons: extender-config/README.md. With
extender.gangMarker false the two entries become the one that binds every pod (filter, bind, preempt).
*/}}
{{- define "muster.schedulerConfig" -}}
{{- $s := .Values.scheduler -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  resourceLock: leases
  resourceName: {{ $s.leaderElection.resourceName }}
  resourceNamespace: {{ .Release.Namespace }}
profiles:
  - schedulerName: {{ $s.name }}
    {{- if not (kindIs "invalid" $s.percentageOfNodesToScore) }}
    percentageOfNodesToScore: {{ int $s.percentageOfNodesToScore }}
    {{- end }}
    {{- /* kube-scheduler's own gang plugins off, a second guard beside --feature-gates (extender-config/README.md) */}}
    plugins:
      multiPoint:
        disabled:
          - name: GangScheduling
          - name: TopologyPlacementGenerator
          - name: PodGroupPodsCount
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: {{ ternary "MostAllocated" "LeastAllocated" (eq .Values.extender.scoring "binpack") }}
            resources:
              - {name: cpu, weight: 1}
              - {name: memory, weight: 1}
extenders:
  {{- /* filter and preempt for every pod of the profile (no managedResources); with extender.gangMarker
  false it binds every pod too */}}
  - urlPrefix: {{ include "muster.extenderUrl" . }}
    filterVerb: filter
    {{- if $s.extender.prioritize }}
    prioritizeVerb: prioritize
    {{- end }}
    {{- if not .Values.extender.gangMarker }}
    bindVerb: bind
    {{- end }}
    preemptVerb: preempt
    {{- if $s.extender.prioritize }}
    weight: {{ int $s.extender.weight }}
    {{- end }}
    {{- include "muster.extenderConnection" . | nindent 4 }}
  {{- if .Values.extender.gangMarker }}
  {{- /* bind only for pods that request the gang marker (added by templates/extender/gang-marker-policy.yaml) */}}
  - urlPrefix: {{ include "muster.extenderUrl" . }}
    bindVerb: bind
    {{- include "muster.extenderConnection" . | nindent 4 }}
    managedResources:
      - {name: {{ include "muster.gangMarkerResource" . }}, ignoredByScheduler: true}
  {{- end }}
{{- end -}}

{{/* How kube-scheduler reaches the extender: the same in every extender entry. */}}
{{- define "muster.extenderConnection" -}}
{{- $s := .Values.scheduler -}}
{{- if eq (include "muster.mtls" .) "true" }}
enableHTTPS: true
tlsConfig:
  certFile: {{ include "muster.extenderClientDir" . }}/tls.crt
  keyFile: {{ include "muster.extenderClientDir" . }}/tls.key
  caFile: {{ include "muster.extenderClientDir" . }}/ca.crt
{{- else }}
enableHTTPS: false
{{- end }}
nodeCacheCapable: {{ $s.extender.nodeCacheCapable }}
ignorable: false
httpTimeout: {{ int $s.extender.httpTimeoutSeconds }}s
{{- end -}}
