{{- /*
muster.helmTlsData: what tls.source helm writes into the four Secrets (extender, scheduler, controller, operator, in
that order), as a JSON list of their data (base64: tls.crt, tls.key, ca.crt, and during a rotation's first stage
next.crt and next.key); muster.helmTlsAnnotations: the rotation's state, written on each of them. Computed once per
render and kept for the rest of it, so the Secrets and the restart trigger on kube-scheduler's pod template (a
checksum of the ca.crt this render writes) agree whether the certificates were looked up, made anew, or the renderer
has no cluster (helm template, GitOps).

A CA rotation in stages, so trust always comes before use (each stage advances on an upgrade once the one before has
been in the Secrets for tls.rotationStepSeconds, long enough for every kubelet to have updated its Secret volumes):
  trust: a new value of tls.rotation makes a new CA and four certificates of it; every ca.crt holds the new CA and the
         old, the new certificates wait in next.crt/next.key, the old ones stay in use.
  use:   the new certificates replace tls.crt/tls.key; every peer already trusts their CA.
  done:  ca.crt holds the new CA alone; nothing uses the old one any more.
Before it is ripe an upgrade writes the Secrets back unchanged. When some Secrets are missing (deleted), all are made
anew at once, each ca.crt holding the new CA and the CA before it (the one-step fallback).
*/ -}}
{{- define "muster.helmTlsData" -}}
{{- if not (hasKey .Values.tls "_helmTlsData") -}}
{{- $names := list (include "muster.extenderTlsSecret" .) (include "muster.schedulerTlsSecret" .) (include "muster.controllerTlsSecret" .) (include "muster.operatorTlsSecret" .) -}}
{{- $components := list "extender" "scheduler" "controller" "operator" -}}
{{- $found := list -}}
{{- $annotations := dict -}}
{{- $oldCas := list -}}
{{- range (ternary $names (list) .Values.tls.keepGenerated) -}}
{{- $s := lookup "v1" "Secret" $.Release.Namespace . -}}
{{- if and $s $s.data (hasKey $s.data "tls.crt") (hasKey $s.data "tls.key") (hasKey $s.data "ca.crt") -}}
{{- $found = append $found $s.data -}}
{{- if eq (len $found) 1 -}}
{{- $annotations = pick (default (dict) $s.metadata.annotations) "muster.dev/tls-rotation" "muster.dev/tls-stage" "muster.dev/tls-stage-since" -}}
{{- end -}}
{{- $first := regexFind "-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----" (index $s.data "ca.crt" | b64dec) -}}
{{- if and $first (not (has $first $oldCas)) -}}
{{- $oldCas = append $oldCas $first -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $data := list -}}
{{- $sameCa := eq (len $found) (len $names) -}}
{{- range $found -}}
{{- $sameCa = and $sameCa (eq (index . "ca.crt") (index (index $found 0) "ca.crt")) -}}
{{- end -}}
{{- $now := now | unixEpoch | int64 -}}
{{- $stage := get $annotations "muster.dev/tls-stage" -}}
{{- $ripe := ge (sub $now (get $annotations "muster.dev/tls-stage-since" | default "0" | int64)) (int64 .Values.tls.rotationStepSeconds) -}}
{{- $days := int .Values.tls.validityDays -}}
{{- if and $sameCa (eq $stage "trust") $ripe -}}
{{- range $found -}}
{{- $data = append $data (dict "tls.crt" (index . "next.crt") "tls.key" (index . "next.key") "ca.crt" (index . "ca.crt")) -}}
{{- end -}}
{{- $annotations = merge (dict "muster.dev/tls-stage" "use" "muster.dev/tls-stage-since" (toString $now)) $annotations -}}
{{- else if and $sameCa (eq $stage "use") $ripe -}}
{{- $newCa := regexFind "-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----" (index (index $found 0) "ca.crt" | b64dec) -}}
{{- range $found -}}
{{- $data = append $data (dict "tls.crt" (index . "tls.crt") "tls.key" (index . "tls.key") "ca.crt" (printf "%s\n" $newCa | b64enc)) -}}
{{- end -}}
{{- $annotations = merge (dict "muster.dev/tls-stage" "done" "muster.dev/tls-stage-since" (toString $now)) $annotations -}}
{{- else if and $sameCa (or (has $stage (list "trust" "use")) (not .Values.tls.rotation) (eq (toString .Values.tls.rotation) (get $annotations "muster.dev/tls-rotation"))) -}}
{{- $data = $found -}}
{{- else -}}
{{- $ca := genCA (printf "%s-ca" (include "muster.fullname" .)) $days -}}
{{- $bundle := printf "%s\n%s" (trim $ca.Cert) (join "\n" $oldCas) | trim | printf "%s\n" -}}
{{- $staged := and $sameCa (toString .Values.tls.rotation) -}}
{{- range $i, $component := $components -}}
{{- $dnsNames := ternary (include "muster.extenderDnsNames" $ | fromJsonArray) nil (eq $component "extender") -}}
{{- $cert := genSignedCert (include "muster.tlsCommonName" (dict "root" $ "component" $component)) nil $dnsNames $days $ca -}}
{{- if $staged -}}
{{- $old := index $found $i -}}
{{- $data = append $data (dict "tls.crt" (index $old "tls.crt") "tls.key" (index $old "tls.key") "ca.crt" ($bundle | b64enc) "next.crt" ($cert.Cert | b64enc) "next.key" ($cert.Key | b64enc)) -}}
{{- else -}}
{{- $data = append $data (dict "tls.crt" ($cert.Cert | b64enc) "tls.key" ($cert.Key | b64enc) "ca.crt" ($bundle | b64enc)) -}}
{{- end -}}
{{- end -}}
{{- if $staged -}}
{{- $annotations = dict "muster.dev/tls-rotation" (toString .Values.tls.rotation) "muster.dev/tls-stage" "trust" "muster.dev/tls-stage-since" (toString $now) -}}
{{- else if .Values.tls.rotation -}}
{{- $annotations = dict "muster.dev/tls-rotation" (toString .Values.tls.rotation) -}}
{{- else -}}
{{- $annotations = dict -}}
{{- end -}}
{{- end -}}
{{- $_ := set .Values.tls "_helmTlsData" $data -}}
{{- $_ := set .Values.tls "_helmTlsAnnotations" $annotations -}}
{{- end -}}
{{- .Values.tls._helmTlsData | toJson -}}
{{- end -}}

{{- define "muster.helmTlsAnnotations" -}}
{{- $_ := include "muster.helmTlsData" . -}}
{{- .Values.tls._helmTlsAnnotations | toJson -}}
{{- end -}}
