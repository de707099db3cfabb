{{- /*
muster.helmTlsData: what tls.source helm writes into the four Secrets (extender, scheduler, controller, operator, in
that order), as a JSON list of {"tls.crt", "tls.key", "ca.crt"} (base64). Computed once per render and kept for the
rest of it, so the Secrets and the restart trigger on kube-scheduler's pod template (a checksum of what this render
writes) agree whether the certificates were looked up, made anew, or the renderer has no cluster (helm template,
GitOps). When made anew while some Secrets of an earlier install exist, each ca.crt holds the new CA and the CA
before it, so a peer that has read its new files still trusts a peer that has not yet.
*/ -}}
{{- define "muster.helmTlsData" -}}
{{- if not (hasKey .Values.tls "_helmTlsData") -}}
{{- $names := list (include "muster.extenderTlsSecret" .) (include "muster.schedulerTlsSecret" .) (include "muster.controllerTlsSecret" .) (include "muster.operatorTlsSecret" .) -}}
{{- $found := list -}}
{{- $oldCas := list -}}
{{- range (ternary $names (list) .Values.tls.keepGenerated) -}}
{{- $s := lookup "v1" "Secret" $.Release.Namespace . -}}
{{- if and $s $s.data (hasKey $s.data "tls.crt") (hasKey $s.data "tls.key") (hasKey $s.data "ca.crt") -}}
{{- $found = append $found $s.data -}}
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
{{- if $sameCa -}}
{{- $data = $found -}}
{{- else -}}
{{- $days := int .Values.tls.validityDays -}}
{{- $ca := genCA (printf "%s-ca" (include "muster.fullname" .)) $days -}}
{{- $bundle := printf "%s\n%s" (trim $ca.Cert) (join "\n" $oldCas) | trim | printf "%s\n" -}}
{{- range (list "extender" "scheduler" "controller" "operator") -}}
{{- $dnsNames := ternary (include "muster.extenderDnsNames" $ | fromJsonArray) nil (eq . "extender") -}}
{{- $cert := genSignedCert (include "muster.tlsCommonName" (dict "root" $ "component" .)) nil $dnsNames $days $ca -}}
{{- $data = append $data (dict "tls.crt" ($cert.Cert | b64enc) "tls.key" ($cert.Key | b64enc) "ca.crt" ($bundle | b64enc)) -}}
{{- end -}}
{{- end -}}
{{- $_ := set .Values.tls "_helmTlsData" $data -}}
{{- end -}}
{{- .Values.tls._helmTlsData | toJson -}}
{{- end -}}
