#!/usr/bin/env bash
# Muster on a local kind cluster, in one command: creates the cluster (unless it exists), builds the jars and the two
# images from this checkout, loads the images onto the kind nodes, installs the chart and submits a first gang (a
# PodGroup of minMember 3 and an indexed Job of 3 pods), then waits for the gang to run.
#
#   scripts/kind-up.sh             # do it (needs kind, kubectl, helm, docker, mvn and a JDK >= 21)
#   scripts/kind-up.sh --dry-run   # print every command it would run, run none
#   scripts/kind-up.sh --name NAME # another kind cluster name (default: muster)
#
# Nothing is downloaded by the script itself. kind pulls its node image (kindest/node, from Docker Hub) when it creates
# the cluster, and docker pulls the images' base (eclipse-temurin:25-jre) on the first build; set KIND_NODE_IMAGE to
# choose the node image (e.g. a kindest/node:v1.36.x you already have). kube-scheduler's image is the one preloaded on
# the kind node (the chart is told the node's version), and the first gang's pods run Muster's own image.
set -euo pipefail

dry_run=false
name=muster
usage="usage: scripts/kind-up.sh [--dry-run] [--name NAME]"
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry_run=true ;;
    --name)
      [ $# -ge 2 ] || { echo "kind-up: --name needs a value; $usage" >&2; exit 2; }
      name="$2"
      shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "kind-up: unknown argument \"$1\"; $usage" >&2; exit 2 ;;
  esac
  shift
done

cd "$(dirname "$0")/.."
context="kind-$name"
# the Maven version names the jars; the chart's appVersion tags the images (the chart's default tag)
maven_version=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -n 1)
tag=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' charts/muster/Chart.yaml)
server_image="muster/muster-server:$tag"
controller_image="muster/muster-controller:$tag"

# Runs a command, or with --dry-run prints it (a word quoted only where a shell would need it).
run() {
  if $dry_run; then
    local line="+" word
    for word in "$@"; do
      if [[ "$word" =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then
        line+=" $word"
      else
        line+=" $(printf '%q' "$word")"
      fi
    done
    echo "$line"
  else
    "$@"
  fi
}

# The first gang: a PodGroup that needs 3 pods at once, and an indexed Job whose 3 pods name it and ask for muster.
first_gang() {
  cat <<YAML
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: first-gang, namespace: default}
spec: {minMember: 3, queue: default}
---
apiVersion: batch/v1
kind: Job
metadata: {name: first-gang, namespace: default}
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 3
  template:
    metadata:
      annotations: {scheduling.k8s.io/group-name: first-gang}
    spec:
      schedulerName: muster
      restartPolicy: Never
      containers:
      - name: worker
        image: $server_image
        imagePullPolicy: IfNotPresent
        command: ["sleep", "120"]
        resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}

missing=()
for tool in kind kubectl helm docker mvn; do
  command -v "$tool" > /dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  if $dry_run; then
    echo "# not on PATH here (needed for a real run): ${missing[*]}"
  else
    echo "kind-up: not on PATH: ${missing[*]} (see the README's \"Try it on kind\")" >&2
    exit 2
  fi
fi

# 1. the cluster
if ! $dry_run && kind get clusters 2> /dev/null | grep -qx "$name"; then
  echo "# kind cluster $name exists: using it"
else
  run kind create cluster --name "$name" ${KIND_NODE_IMAGE:+--image "$KIND_NODE_IMAGE"} --wait 120s
fi

# 2. the jars and the images
run mvn -B -q -pl server,controller -am package -DskipTests
run docker build --build-arg "VERSION=$maven_version" -t "$server_image" server/
run docker build --build-arg "VERSION=$maven_version" -t "$controller_image" controller/

# 3. onto the nodes
run kind load docker-image --name "$name" "$server_image" "$controller_image"

# 4. the chart: kube-scheduler of the nodes' own version (preloaded on kind nodes); the gang marker needs 1.36
if $dry_run; then
  echo "# NODE_VERSION below: the nodes' kubelet version (e.g. v1.36.3), read once the cluster exists with"
  echo "#   kubectl --context $context get nodes -o jsonpath='{.items[0].status.nodeInfo.kubeletVersion}'"
  k8s_version=NODE_VERSION
  minor=36
else
  k8s_version=$(kubectl --context "$context" get nodes -o jsonpath='{.items[0].status.nodeInfo.kubeletVersion}')
  minor=$(echo "$k8s_version" | sed -n 's/^v1\.\([0-9]*\)\..*/\1/p')
fi
marker=()
if [ "${minor:-0}" -lt 36 ]; then
  marker=(--set extender.gangMarker=false)
fi
run helm upgrade --install muster charts/muster --kube-context "$context" --namespace muster-system --create-namespace \
  --set "scheduler.image.tag=$k8s_version" ${marker[@]+"${marker[@]}"} --wait --timeout 5m

# 5. a first gang
if $dry_run; then
  echo "+ kubectl --context $context apply -f - <<'YAML'"
  first_gang
  echo "YAML"
else
  first_gang | kubectl --context "$context" apply -f -
fi
run kubectl --context "$context" -n default wait podgroup/first-gang --for=jsonpath='{.status.phase}'=Running --timeout=180s
run kubectl --context "$context" -n default get podgroup first-gang
run kubectl --context "$context" -n default get pods -l job-name=first-gang -o wide
if ! $dry_run; then
  echo "Muster runs on kind cluster $name (kubectl context $context). The gang's pods sleep 2 minutes; then:"
  echo "  kubectl --context $context delete job,podgroup first-gang     # or: kind delete cluster --name $name"
fi
