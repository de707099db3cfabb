{{/*
The KubeSchedulerConfiguration of the second kube-scheduler. Its extender block must stay field for
field the same as extender-config/scheduler-config.yaml (and scheduler-config-tls.yaml when
extender.tls.enabled); deploy-tests checks this. Field reasons: extender-config/README.md.
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
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: {{ ternary "MostAllocated" "LeastAllocated" (eq .Values.extender.scoring "binpack") }}
            resources:
              - {name: cpu, weight: 1}
              - {name: memory, weight: 1}
extenders:
  - urlPrefix: {{ include "muster.extenderUrl" . }}
    filterVerb: filter
    {{- if $s.extender.prioritize }}
    prioritizeVerb: prioritize
    {{- end }}
    bindVerb: bind
    preemptVerb: preempt
    {{- if $s.extender.prioritize }}
    weight: {{ int $s.extender.weight }}
    {{- end }}
    enableHTTPS: {{ .Values.extender.tls.enabled }}
    {{- if .Values.extender.tls.enabled }}
    tlsConfig:
      caFile: {{ include "muster.extenderCaDir" . }}/ca.crt
    {{- end }}
    nodeCacheCapable: {{ $s.extender.nodeCacheCapable }}
    ignorable: false
    httpTimeout: {{ int $s.extender.httpTimeoutSeconds }}s
{{- end -}}
