{{/*
Names, labels and shared fragments. Components are "scheduler", "extender" and "controller"; most
helpers take a dict {"root": $, "component": "<name>"}.
*/}}

{{/* Chart name, or nameOverride. */}}
{{- define "muster.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Prefix of every object name: fullnameOverride, else the release name if it contains the chart
name, else "<release>-<chart>". */}}
{{- define "muster.fullname" -}}
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

{{/* "<fullname>-<component>", the name of a component's Deployment, Service, PDB, RBAC objects. */}}
{{- define "muster.componentName" -}}
{{- printf "%s-%s" (include "muster.fullname" .root | trunc 52 | trimSuffix "-") .component -}}
{{- end -}}

{{- define "muster.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object of a component. */}}
{{- define "muster.labels" -}}
helm.sh/chart: {{ include "muster.chart" .root }}
{{ include "muster.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: muster
{{- end -}}

{{/* Labels that select a component's pods (Deployment selector, Service selector, PDB). */}}
{{- define "muster.selectorLabels" -}}
app.kubernetes.io/name: {{ include "muster.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The component's ServiceAccount name. */}}
{{- define "muster.serviceAccountName" -}}
{{- $values := index .root.Values .component -}}
{{- default (include "muster.componentName" .) $values.serviceAccount.name -}}
{{- end -}}

{{/* Image reference "<repository>:<tag>", tag defaulting to the chart's appVersion. */}}
{{- define "muster.image" -}}
{{- $image := (index .root.Values .component).image -}}
{{- printf "%s:%s" $image.repository (default .root.Chart.AppVersion ($image.tag | toString)) -}}
{{- end -}}

{{/* In-cluster DNS name of the extender Service. */}}
{{- define "muster.extenderHost" -}}
{{- printf "%s.%s.svc" (include "muster.componentName" (dict "root" . "component" "extender")) .Release.Namespace -}}
{{- end -}}

{{/* urlPrefix kube-scheduler calls: https://<extender service>.<namespace>.svc:<httpPort> (http:// when insecure). */}}
{{- define "muster.extenderUrl" -}}
{{- $scheme := ternary "https" "http" (include "muster.mtls" . | eq "true") -}}
{{- printf "%s://%s:%d" $scheme (include "muster.extenderHost" .) (int .Values.extender.httpPort) -}}
{{- end -}}

{{/* "true" unless tls.insecureUnauthenticatedVerbs: the extender's verbs and stream require client certificates. */}}
{{- define "muster.mtls" -}}{{ not .Values.tls.insecureUnauthenticatedVerbs }}{{- end -}}

{{/* The Secrets of the chart's certificates (each holds tls.crt, tls.key and ca.crt, the CA of all three):
the extender's (serving the verbs and gRPC, and its client certificate when a standby forwards to the leader),
kube-scheduler's client certificate, the controller's client certificate. Takes the root context. */}}
{{- define "muster.extenderTlsSecret" -}}{{ include "muster.componentName" (dict "root" . "component" "extender") }}-tls{{- end -}}
{{- define "muster.schedulerTlsSecret" -}}{{ include "muster.componentName" (dict "root" . "component" "scheduler") }}-client-tls{{- end -}}
{{- define "muster.controllerTlsSecret" -}}{{ include "muster.componentName" (dict "root" . "component" "controller") }}-client-tls{{- end -}}
{{- /* "true" when the extender and the controller read their TLS Secrets through the API (tls.readFromApi) */}}
{{- define "muster.tlsFromApi" -}}{{ and (eq (include "muster.mtls" .) "true") .Values.tls.readFromApi }}{{- end -}}
{{- /* RBAC rules to read one Secret through the API (get, and list and watch by a metadata.name field selector) */}}
{{- define "muster.secretReadRules" -}}
- apiGroups: [""]
  resources: ["secrets"]
  resourceNames: [{{ . | quote }}]
  verbs: ["get", "list", "watch"]
{{- end -}}
{{- define "muster.operatorTlsSecret" -}}{{ include "muster.componentName" (dict "root" . "component" "operator") }}-client-tls{{- end -}}

{{/*
Each caller's certificate identity, its subject common name: the extender's is its Service's name, the others'
"<fullname>-<component>". The extender serves each entry point only to its own callers (--tls-client-roles).
*/}}
{{- define "muster.tlsCommonName" -}}
{{- if eq .component "extender" -}}
{{- include "muster.extenderHost" .root -}}
{{- else -}}
{{- include "muster.componentName" . -}}
{{- end -}}
{{- end -}}

{{/* --tls-client-roles: role=common name for kube-scheduler, the extender replicas, the controller and operators. */}}
{{- define "muster.tlsClientRoles" -}}
{{- $out := list -}}
{{- range (list "scheduler" "extender" "controller" "operator") -}}
{{- $out = append $out (printf "%s=%s" . (include "muster.tlsCommonName" (dict "root" $ "component" .))) -}}
{{- end -}}
{{- join "," $out -}}
{{- end -}}

{{/* The DNS names the extender's certificate is valid for: its Service, short and long. */}}
{{- define "muster.extenderDnsNames" -}}
{{- $svc := include "muster.componentName" (dict "root" . "component" "extender") -}}
{{- list $svc (printf "%s.%s" $svc .Release.Namespace) (printf "%s.%s.svc" $svc .Release.Namespace) (printf "%s.%s.svc.cluster.local" $svc .Release.Namespace) | toJson -}}
{{- end -}}

{{/* Where kube-scheduler finds its client certificate and the CA of the extender's (same paths as
extender-config/scheduler-config.yaml). */}}
{{- define "muster.extenderClientDir" -}}/etc/muster/extender-client{{- end -}}

{{/* Mount points of certificate Secrets inside the extender and controller containers. */}}
{{- define "muster.tlsDir" -}}/etc/muster/tls{{- end -}}
{{- define "muster.grpcTlsDir" -}}/etc/muster/grpc-tls{{- end -}}

{{/* Container securityContext shared by every container of the chart. Takes the user id. */}}
{{- define "muster.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ . }}
runAsGroup: {{ . }}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Pod securityContext. Takes the user id (also the group that may read mounted Secrets). */}}
{{- define "muster.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ . }}
runAsGroup: {{ . }}
fsGroup: {{ . }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* POD_NAME, POD_NAMESPACE, POD_IP from the downward API (leader identity "<POD_NAME>_<POD_IP>", the extender's with its ports). */}}
{{- define "muster.podEnv" -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: POD_IP
  valueFrom:
    fieldRef:
      fieldPath: status.podIP
{{- end -}}

{{/* Affinity: the component's value, or a soft preference to put replicas on different nodes. */}}
{{- define "muster.affinity" -}}
{{- $values := index .root.Values .component -}}
{{- if $values.affinity -}}
{{- toYaml $values.affinity -}}
{{- else -}}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "muster.selectorLabels" . | nindent 12 }}
{{- end -}}
{{- end -}}

{{/* Pod scheduling fields shared by the three Deployments. */}}
{{- define "muster.podPlacement" -}}
{{- $values := index .root.Values .component -}}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with $values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
affinity:
  {{- include "muster.affinity" . | nindent 2 }}
{{- end -}}

{{/* Leader-election Lease rules: create cannot be limited by name, get and update can. */}}
{{- define "muster.leaseRules" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  resourceNames: [{{ . | quote }}]
  verbs: ["get", "update"]
{{- end -}}

{{/*
Rejects inconsistent values with a message naming them. Included from templates/validate.yaml.
*/}}
{{- define "muster.validate" -}}
{{- $v := .Values -}}
{{- if le (int $v.scheduler.extender.httpTimeoutSeconds) (int $v.extender.gangDeadlineSeconds) -}}
{{- fail (printf "scheduler.extender.httpTimeoutSeconds (%d) must be greater than extender.gangDeadlineSeconds (%d): kube-scheduler would give up on a gang member's bind while the gang still waits for its other members" (int $v.scheduler.extender.httpTimeoutSeconds) (int $v.extender.gangDeadlineSeconds)) -}}
{{- end -}}
{{- if not (has $v.extender.scoring (list "binpack" "spread")) -}}
{{- fail (printf "extender.scoring must be \"binpack\" or \"spread\", not %q" (toString $v.extender.scoring)) -}}
{{- end -}}
{{- if and $v.extender.gangMarker (semverCompare "<1.36.0-0" .Capabilities.KubeVersion.Version) -}}
{{- fail (printf "extender.gangMarker needs Kubernetes 1.36 or later (the gang marker is a MutatingAdmissionPolicy, admissionregistration.k8s.io/v1, GA in 1.36) and the cluster is %s: set extender.gangMarker=false (kube-scheduler then binds every pod through Muster), or, rendering offline, pass your cluster's --kube-version" .Capabilities.KubeVersion.Version) -}}
{{- end -}}
{{- range $gate := list "GenericWorkload" "GangScheduling" "TopologyAwareWorkloadScheduling" "WorkloadAwarePreemption" -}}
{{- if eq (toString (index $v.scheduler.featureGates $gate)) "true" -}}
{{- fail (printf "scheduler.featureGates.%s must not be true: with it Muster's kube-scheduler would schedule Kubernetes PodGroups itself (its pod-group cycle runs whatever the profile says) and write their status beside Muster's controller; turn the workload gates on for the API server only (extender-config/README.md)" $gate) -}}
{{- end -}}
{{- end -}}
{{- if and $v.extender.provisioning.enabled (not $v.extender.queueGate.enabled) -}}
{{- fail "extender.provisioning.enabled needs extender.queueGate.enabled=true: a gang waits for the autoscaler's nodes behind Muster's scheduling gate, else the autoscaler would also scale up for its pods one by one" -}}
{{- end -}}
{{- if eq $v.scheduler.leaderElection.resourceName "kube-scheduler" -}}
{{- fail "scheduler.leaderElection.resourceName must not be \"kube-scheduler\": that is the default scheduler's Lease, and the two schedulers would take turns instead of running side by side" -}}
{{- end -}}
{{- end -}}

{{/*
JAVA_TOOL_OPTIONS of a Muster JVM: -Xshare:off when classDataArchive is false (the image's entrypoint maps the
class data archive built into the image), -XX:CompilationMode unless compilationMode is the JVM's default (with
quick-only, C1 alone, also -XX:CompileThresholdScaling=0.1: with no profiling tier to feed, C1 compiles a method after a
tenth of the calls the JVM waits for by default, so a fresh start runs less of its first pods in the interpreter), the
collector garbageCollector names (none for default), and the component's own javaToolOptions (last, so a flag there
wins). Called with the component's values (.Values.extender
or .Values.controller).
*/}}
{{- define "muster.javaToolOptions" -}}
{{- $opts := list -}}
{{- if not .classDataArchive -}}
{{- $opts = append $opts "-Xshare:off" -}}
{{- end -}}
{{- if and .compilationMode (ne .compilationMode "default") -}}
{{- $opts = append $opts (printf "-XX:CompilationMode=%s" .compilationMode) -}}
{{- if eq .compilationMode "quick-only" -}}
{{- $opts = append $opts "-XX:CompileThresholdScaling=0.1" -}}
{{- end -}}
{{- end -}}
{{- $gc := dict "serial" "-XX:+UseSerialGC" "g1" "-XX:+UseG1GC" "parallel" "-XX:+UseParallelGC" -}}
{{- with get $gc (.garbageCollector | default "default") -}}
{{- $opts = append $opts . -}}
{{- end -}}
{{- with .javaToolOptions -}}
{{- $opts = append $opts . -}}
{{- end -}}
{{- join " " $opts -}}
{{- end -}}

{{/*
The volume mounts every Muster JVM container has: a writable /tmp (the root filesystem is read-only). Called with
the component's values.
*/}}
{{- define "muster.jvmVolumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{/* The volumes behind muster.jvmVolumeMounts. Called with the component's values. */}}
{{- define "muster.jvmVolumes" -}}
# The JVM and gRPC's native transport write to /tmp; the root filesystem is read-only.
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end -}}

{{/* The extended resource that marks gang members: the gang marker policy adds it, kube-scheduler's bind
extender manages it (managedResources), the extender's --gang-marker expects it. */}}
{{- define "muster.gangMarkerResource" -}}muster.dev/gang{{- end -}}

{{/*
kube-scheduler's --feature-gates value: scheduler.featureGates with GenericWorkload and GangScheduling false
(kube-scheduler's own gang scheduling off; muster.validate refuses them true), sorted by gate.
*/}}
{{- define "muster.schedulerFeatureGates" -}}
{{- $gates := merge (dict "GenericWorkload" false "GangScheduling" false) (deepCopy .Values.scheduler.featureGates) -}}
{{- $out := list -}}
{{- range $gate := keys $gates | sortAlpha -}}
{{- $out = append $out (printf "%s=%t" $gate (index $gates $gate)) -}}
{{- end -}}
{{- join "," $out -}}
{{- end -}}
