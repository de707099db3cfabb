#!/usr/bin/env bash
# Captures the fixtures in this folder from a real kube-apiserver v1.36.3 (see README.md here).
# Usage: MUSTER_K8S_BINARIES=/path/to/k8s/bin ./capture.sh [OUT_DIR]
set -euo pipefail
BIN=${MUSTER_K8S_BINARIES:?set MUSTER_K8S_BINARIES to the folder holding etcd and kube-apiserver}
OUT=$(cd "${1:-$(dirname "$0")}" && pwd)
W=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
E=$(port); P=$(port); S=$(port)

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$W/tls.key" -out "$W/tls.crt" 2>/dev/null
openssl genrsa -out "$W/sa.key" 2048 2>/dev/null
openssl rsa -in "$W/sa.key" -pubout -out "$W/sa.pub" 2>/dev/null
TOKEN=$(cat /proc/sys/kernel/random/uuid)
echo "$TOKEN,admin,admin-uid,\"system:masters\"" > "$W/tokens.csv"

"$BIN/etcd" --data-dir "$W/etcd" --name default --log-level warn \
  --listen-client-urls http://127.0.0.1:$E --advertise-client-urls http://127.0.0.1:$E \
  --listen-peer-urls http://127.0.0.1:$P --initial-advertise-peer-urls http://127.0.0.1:$P \
  --initial-cluster default=http://127.0.0.1:$P >"$W/etcd.log" 2>&1 & PIDS+=($!)
until curl -sf http://127.0.0.1:$E/health | grep -q '"health":"true"'; do sleep 0.5; done
"$BIN/kube-apiserver" --etcd-servers=http://127.0.0.1:$E --bind-address=127.0.0.1 --secure-port=$S \
  --advertise-address=127.0.0.1 --endpoint-reconciler-type=none --tls-cert-file="$W/tls.crt" \
  --tls-private-key-file="$W/tls.key" --client-ca-file="$W/tls.crt" --token-auth-file="$W/tokens.csv" \
  --authorization-mode=RBAC --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$W/sa.pub" --service-account-signing-key-file="$W/sa.key" \
  --service-cluster-ip-range=10.0.0.0/24 --feature-gates=GenericWorkload=true \
  --runtime-config=scheduling.k8s.io/v1alpha2=true >"$W/apiserver.log" 2>&1 & PIDS+=($!)
API=https://127.0.0.1:$S
k() { curl -sS --cacert "$W/tls.crt" -H "Authorization: Bearer $TOKEN" "$@"; }
until [ "$(k $API/readyz 2>/dev/null)" = ok ]; do sleep 0.5; done

post() { local r; r=$(k -w '\n%{http_code}' -X POST -H 'Content-Type: application/json' "$API$1" -d "$2"); case "${r##*$'\n'}" in 2*) ;; *) echo "POST $1: $r" >&2; exit 1;; esac; }
post /api/v1/namespaces '{"metadata":{"name":"team-a"}}'
post /api/v1/namespaces/team-a/serviceaccounts '{"metadata":{"name":"default"}}'
post /apis/scheduling.k8s.io/v1/priorityclasses '{"metadata":{"name":"batch-high"},"value":7}'
# spec.overhead is set by admission from the RuntimeClass (a pod may not set it on its own)
post /apis/node.k8s.io/v1/runtimeclasses '{"metadata":{"name":"kata"},"handler":"kata","overhead":{"podFixed":{"cpu":"50m","memory":"64Mi"}}}'

JSON='application/json'
PROTO='application/vnd.kubernetes.protobuf'
RV=$(k "$API/api/v1/pods?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])')
# Two watches from the same resourceVersion, one per encoding, see the same events.
watch() { k -D "$OUT/$2.headers" -H "Accept: $1" -o "$OUT/$2" \
  "$API/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion=$RV&timeoutSeconds=12"; }
watch "$JSON" watch-pods.json & WJ=$!
watch "$PROTO;stream=watch" watch-pods.pb & WP=$!
sleep 1

# A gang member with every field Muster keeps, and many it does not.
post /api/v1/namespaces/team-a/pods '{"metadata":{"name":"w0","labels":{"app":"train","scheduling.x-k8s.io/pod-group":"pg-x"},
 "annotations":{"scheduling.k8s.io/group-name":"train","volcano.sh/task-spec":"worker","kubectl.kubernetes.io/last-applied-configuration":"{\"big\":true}"},
 "ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"train","uid":"6f0c7a52-0d3c-4d6a-9d2a-1b1f5d0e7a11","controller":true,"blockOwnerDeletion":true},
  {"apiVersion":"v1","kind":"ConfigMap","name":"cfg","uid":"0b7e3c1e-8e59-4a7a-a1a8-0f6a3a2d9c22"}],
 "finalizers":["muster.dev/test"]},
 "spec":{"schedulerName":"muster","priorityClassName":"batch-high","nodeName":"n1",
  "runtimeClassName":"kata",
  "resources":{"requests":{"cpu":"3","memory":"6Gi"},"limits":{"memory":"8Gi"}},
  "schedulingGroup":{"podGroupName":"train-pg"},
  "initContainers":[{"name":"init","image":"busybox","resources":{"requests":{"cpu":"2"}}},
   {"name":"proxy","image":"envoy","restartPolicy":"Always","resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}],
  "containers":[{"name":"main","image":"registry/x:1","env":[{"name":"A","value":"b"}],"ports":[{"containerPort":8080}],
   "resources":{"requests":{"cpu":"1","memory":"2Gi","nvidia.com/gpu":"1"},"limits":{"cpu":"2","memory":"2Gi","nvidia.com/gpu":"1"}}},
   {"name":"side","image":"busybox"}],
  "tolerations":[{"key":"k","operator":"Exists"}],"nodeSelector":{"disk":"ssd"}}}'
# A plain pod: no gang, no requests, default scheduler.
post /api/v1/namespaces/team-a/pods '{"metadata":{"name":"plain","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}'
# A pod with an overhead-free request and a negative priority class is not needed; status.phase through the subresource:
k -f -X PATCH -H 'Content-Type: application/merge-patch+json' "$API/api/v1/namespaces/team-a/pods/w0/status" \
  -d '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}],"podIP":"10.1.2.3"}}' >/dev/null
# deletionTimestamp: the finalizer keeps w0 while it is being deleted; then it goes.
k -f -X DELETE "$API/api/v1/namespaces/team-a/pods/w0" >/dev/null
k -f -X PATCH -H 'Content-Type: application/merge-patch+json' "$API/api/v1/namespaces/team-a/pods/w0" \
  -d '{"metadata":{"finalizers":null}}' >/dev/null
sleep 1
# The list (both encodings) while 'plain' and a re-created gang member exist.
post /api/v1/namespaces/team-a/pods '{"metadata":{"name":"w1","annotations":{"scheduling.volcano.sh/group-name":"train"},"finalizers":["muster.dev/test"]},
 "spec":{"schedulerName":"muster","priorityClassName":"batch-high","initContainers":[{"name":"proxy","image":"envoy","restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}}],
  "containers":[{"name":"main","image":"registry/x:1","resources":{"requests":{"cpu":"1","memory":"2Gi"}}}]}}'
k -f -X DELETE "$API/api/v1/namespaces/team-a/pods/w1" >/dev/null
k -D "$OUT/list-pods.json.headers" -H "Accept: $JSON" -o "$OUT/list-pods.json" "$API/api/v1/pods"
k -D "$OUT/list-pods.pb.headers" -H "Accept: $PROTO, $JSON" -o "$OUT/list-pods.pb" "$API/api/v1/pods"
# w1 (unbound, deleted with a grace period of 0) goes once its finalizer does: a DELETED event.
k -f -X PATCH -H 'Content-Type: application/merge-patch+json' "$API/api/v1/namespaces/team-a/pods/w1" \
  -d '{"metadata":{"finalizers":null}}' >/dev/null
wait $WJ $WP

# A watch that starts with the initial events and ends them with a bookmark (deterministic, unlike periodic bookmarks).
initial() { k -D "$OUT/$2.headers" -H "Accept: $1" -o "$OUT/$2" \
  "$API/api/v1/pods?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&timeoutSeconds=2"; }
initial "$JSON" watch-pods-initial.json
initial "$PROTO;stream=watch" watch-pods-initial.pb
# A watch from a resourceVersion etcd has compacted away: an ERROR event (410 Expired). The watch cache would
# serve it from memory, so a second API server without one (same etcd) answers it.
REV=$(curl -sS -X POST http://127.0.0.1:$E/v3/kv/range -d '{"key":"AA=="}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])')
curl -sSf -X POST http://127.0.0.1:$E/v3/kv/compaction -d "{\"revision\":\"$REV\",\"physical\":true}" >/dev/null
S2=$(port)
"$BIN/kube-apiserver" --etcd-servers=http://127.0.0.1:$E --bind-address=127.0.0.1 --secure-port=$S2 \
  --advertise-address=127.0.0.1 --endpoint-reconciler-type=none --tls-cert-file="$W/tls.crt" \
  --tls-private-key-file="$W/tls.key" --client-ca-file="$W/tls.crt" --token-auth-file="$W/tokens.csv" \
  --authorization-mode=RBAC --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$W/sa.pub" --service-account-signing-key-file="$W/sa.key" \
  --service-cluster-ip-range=10.0.0.0/24 --watch-cache=false >"$W/apiserver2.log" 2>&1 & PIDS+=($!)
until [ "$(k https://127.0.0.1:$S2/readyz 2>/dev/null)" = ok ]; do sleep 0.5; done
old() { k -D "$OUT/$2.headers" -H "Accept: $1" -o "$OUT/$2" "https://127.0.0.1:$S2/api/v1/pods?watch=true&resourceVersion=2&timeoutSeconds=5"; }
old "$JSON" watch-pods-error.json
old "$PROTO;stream=watch" watch-pods-error.pb

# Which Accept headers get which watch encoding (recorded in negotiation.txt).
: > "$OUT/negotiation.txt"
for a in "$PROTO;stream=watch" "$PROTO, $JSON" "$PROTO;stream=watch, $JSON;stream=watch" "$PROTO;stream=watch, $JSON" "$JSON" "*/*"; do
  ct=$(k -o /dev/null -w '%{http_code} %{content_type}' -H "Accept: $a" "$API/api/v1/pods?watch=true&timeoutSeconds=1")
  echo "watch Accept: $a -> $ct" >> "$OUT/negotiation.txt"
done
for a in "$PROTO, $JSON" "$PROTO;stream=watch" "$JSON"; do
  ct=$(k -o /dev/null -w '%{http_code} %{content_type}' -H "Accept: $a" "$API/api/v1/pods")
  echo "list  Accept: $a -> $ct" >> "$OUT/negotiation.txt"
done

# Nodes: labels, taints of every effect, unschedulable, allocatable.
post /api/v1/nodes '{"metadata":{"name":"n1","labels":{"topology.kubernetes.io/zone":"z1","kubernetes.io/hostname":"n1"}},
 "spec":{"unschedulable":true,"taints":[{"key":"a","effect":"NoSchedule"},{"key":"b","value":"x","effect":"PreferNoSchedule"}]}}'
k -f -X PATCH -H 'Content-Type: application/merge-patch+json' "$API/api/v1/nodes/n1/status" \
  -d '{"status":{"capacity":{"cpu":"32","memory":"128Gi","pods":"110"},"allocatable":{"cpu":"31800m","memory":"120Gi","pods":"110"},
  "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"ok","lastHeartbeatTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z"}],
  "images":[{"names":["registry/big:1"],"sizeBytes":1073741824}]}}' >/dev/null
post /api/v1/nodes '{"metadata":{"name":"n2"}}'
k -D "$OUT/list-nodes.json.headers" -H "Accept: $JSON" -o "$OUT/list-nodes.json" "$API/api/v1/nodes"
k -D "$OUT/list-nodes.pb.headers" -H "Accept: $PROTO, $JSON" -o "$OUT/list-nodes.pb" "$API/api/v1/nodes"
sed -i 's/\r$//; /^date:/Id; /^audit-id:/Id; /^x-kubernetes-pf-/Id' "$OUT"/*.headers
echo "captured into $OUT"
