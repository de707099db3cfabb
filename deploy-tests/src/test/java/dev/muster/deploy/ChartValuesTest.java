package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.deploy.Chart.Install;
import dev.muster.deploy.Chart.Rendered;
import dev.muster.server.ServerConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What individual values do to the rendered objects. */
class ChartValuesTest {
    /** Kinds the chart renders without a namespace. */
    private static final Set<String> CLUSTER_SCOPED = Set.of("ClusterRole", "ClusterRoleBinding", "Queue",
            "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "FlowSchema",
            "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");

    @Test
    void defaultsRenderTwoReplicasOfEachComponentWithPdbsAndTheDefaultQueue() {
        Rendered chart = Chart.render(Install.defaults());
        for (String component : List.of("scheduler", "extender", "controller")) {
            assertThat(chart.deployment(component).spec()).as(component).containsEntry("replicas", 2);
            assertThat(chart.find("PodDisruptionBudget", "muster-" + component)).as(component + " PDB").isPresent();
        }
        assertThat(chart.ofKind("Deployment").stream().map(Manifest::name))
                .containsExactlyInAnyOrder("muster-scheduler", "muster-extender", "muster-controller");
        assertThat(chart.ofKind("Service").stream().map(Manifest::name))
                .containsExactlyInAnyOrder("muster-extender", "muster-controller");
        Manifest queue = chart.one("Queue", "default");
        assertThat(Tree.string(queue.body(), "apiVersion")).isEqualTo("scheduling.volcano.sh/v1beta1");
        assertThat(queue.spec()).containsEntry("weight", 1).containsEntry("reclaimable", true);
        assertThat(Tree.map(queue.body(), "metadata", "annotations")).containsEntry("helm.sh/resource-policy", "keep");
    }

    @Test
    void imagesDefaultToTheUpstreamSchedulerAndTheChartAppVersion() {
        Rendered chart = Chart.render(Install.defaults());
        assertThat(chart.deployment("scheduler").container().get("image")).isEqualTo("registry.k8s.io/kube-scheduler:v1.36.3");
        assertThat(chart.deployment("extender").container().get("image")).isEqualTo("muster/muster-server:0.1.0");
        assertThat(chart.deployment("controller").container().get("image")).isEqualTo("muster/muster-controller:0.1.0");

        Rendered pinned = Chart.render(Install.with("scheduler.image.tag", "v1.35.2", "extender.image.tag", "1.2.3"));
        assertThat(pinned.deployment("scheduler").container().get("image")).isEqualTo("registry.k8s.io/kube-scheduler:v1.35.2");
        assertThat(pinned.deployment("extender").container().get("image")).isEqualTo("muster/muster-server:1.2.3");
        assertThat(Chart.render(Install.with("controller.image.tag", 2)).deployment("controller").container().get("image"))
                .as("a numeric --set tag").isEqualTo("muster/muster-controller:2");
    }

    @Test
    void defaultsPassTheProcessDefaultsAsFlagsButAVictimMinimumRunTime() {
        Rendered chart = Chart.render(Install.defaults());
        assertThat(Tree.strings(chart.deployment("extender").container(), "args")).containsExactly(
                "--scheduler-name=muster", "--http-port=8888", "--ops-port=8080", "--grpc-port=9090",
                "--gang-deadline=60s", "--scoring=binpack", "--pick-node=true", "--warm-up=true", "--gang-marker=true", "--queue-admission-gate=false",
                "--preemption=true", "--reclaim=true", "--victim-min-runtime=5m", "--reclaim-band=0.1",
                "--dry-run-rate=1", "--dry-run-burst=5", "--dry-run-process-rate=5", "--max-body-bytes=67108864", "--journal-window=65536",
                "--leader-elect=true", "--lease-name=muster-extender", "--lease-namespace=$(POD_NAMESPACE)",
                "--tls-cert-file=/etc/muster/tls/tls.crt", "--tls-key-file=/etc/muster/tls/tls.key", "--tls-client-ca-file=/etc/muster/tls/ca.crt",
                "--grpc-tls-cert-file=/etc/muster/tls/tls.crt", "--grpc-tls-key-file=/etc/muster/tls/tls.key",
                "--grpc-tls-client-ca-file=/etc/muster/tls/ca.crt",
                "--tls-client-roles=scheduler=muster-scheduler,extender=muster-extender.muster-system.svc,controller=muster-controller,"
                        + "operator=muster-operator", "--tls-secret=muster-system/muster-extender-tls",
                "--scheduler-deployment=muster-system/muster-scheduler");
        assertThat(Tree.strings(chart.deployment("controller").container(), "args")).containsExactly(
                "--extender-address=muster-extender.muster-system.svc:9090", "--ops-port=8080", "--grpc-port=9091",
                "--flush-interval=1s", "--api-qps=20", "--api-burst=40", "--leader-elect=true",
                "--lease-name=muster-controller", "--lease-namespace=$(POD_NAMESPACE)",
                "--extender-tls-ca-file=/etc/muster/extender-client/ca.crt", "--extender-tls-cert-file=/etc/muster/extender-client/tls.crt",
                "--extender-tls-key-file=/etc/muster/extender-client/tls.key", "--extender-tls-secret=muster-system/muster-controller-client-tls");
        assertThat(Tree.strings(chart.deployment("scheduler").container(), "command")).containsExactly(
                "kube-scheduler", "--config=/etc/kubernetes/muster/scheduler-config.yaml", "--v=2",
                "--feature-gates=GangScheduling=false,GenericWorkload=false");
    }

    @Test
    void schedulerFeatureGatesKeepKubeSchedulersOwnGangSchedulingOff() {
        Rendered chart = Chart.render(Install.with("scheduler.featureGates.SchedulerAsyncAPICalls", true,
                "scheduler.featureGates.GenericWorkload", false));
        assertThat(Tree.strings(chart.deployment("scheduler").container(), "command"))
                .contains("--feature-gates=GangScheduling=false,GenericWorkload=false,SchedulerAsyncAPICalls=true");
    }

    @Test
    void replicasOneAppliesToEveryComponent() {
        Rendered chart = Chart.render(Install.with("scheduler.replicas", 1, "extender.replicas", 1, "controller.replicas", 1));
        for (String component : List.of("scheduler", "extender", "controller")) {
            assertThat(chart.deployment(component).spec()).as(component).containsEntry("replicas", 1);
        }
    }

    @Test
    void spreadScoringReachesTheExtender() {
        Rendered chart = Chart.render(Install.with("extender.scoring", "spread"));
        assertThat(Tree.strings(chart.deployment("extender").container(), "args")).contains("--scoring=spread").doesNotContain("--scoring=binpack");
    }

    @Test
    void preemptionValuesReachTheExtenderAndOnlyItsRoleMayEvict() {
        Rendered chart = Chart.render(Install.with("extender.preemption.enabled", false, "extender.preemption.victimMinRuntime", "15m",
                "extender.preemption.reclaimBand", 0.25, "extender.preemption.dryRunRate", 0.5, "extender.preemption.dryRunBurst", 2,
                "extender.preemption.dryRunProcessRate", 20));
        assertThat(Tree.strings(chart.deployment("extender").container(), "args"))
                .contains("--preemption=false", "--reclaim=true", "--victim-min-runtime=15m", "--reclaim-band=0.25",
                        "--dry-run-rate=0.5", "--dry-run-burst=2", "--dry-run-process-rate=20");
        Permission evict = Permission.of("", "pods/eviction", "create");
        Permission watchBudgets = Permission.of("policy", "poddisruptionbudgets", "watch");
        for (Rendered r : List.of(Chart.render(Install.defaults()), chart)) {
            List<Manifest> evicting = Stream.concat(r.ofKind("ClusterRole").stream(), r.ofKind("Role").stream())
                    .filter(role -> Permission.expand(role.body()).contains(evict)).toList();
            assertThat(evicting).extracting(Manifest::name).as("only the extender may evict; never the controller")
                    .containsExactly("muster-extender");
            assertThat(Permission.expand(evicting.get(0).body())).contains(watchBudgets);
        }
        Rendered off = Chart.render(Install.with("extender.preemption.enabled", false, "extender.preemption.reclaim", false));
        assertThat(Stream.concat(off.ofKind("ClusterRole").stream(), off.ofKind("Role").stream())
                .flatMap(role -> Permission.expand(role.body()).stream())).as("nothing evicted: no eviction RBAC")
                .doesNotContain(evict, watchBudgets);
    }

    @Test
    void provisioningValuesReachTheExtenderAndGrantOnlyItsRequestsAndTemplates() {
        Rendered chart = Chart.render(Install.with("extender.queueGate.enabled", true, "extender.provisioning.enabled", true,
                "extender.provisioning.parameters.Zone", "eu-west-1a", "extender.provisioning.parameters.Pool", "gpu"));
        assertThat(Tree.strings(chart.deployment("extender").container(), "args")).contains("--provisioning=true",
                "--provisioning-class=best-effort-atomic-scale-up.autoscaling.x-k8s.io", "--provisioning-parameters=Pool=gpu,Zone=eu-west-1a");
        Set<Permission> provisioning = Set.of(Permission.of("autoscaling.x-k8s.io", "provisioningrequests", "list"),
                Permission.of("autoscaling.x-k8s.io", "provisioningrequests", "watch"),
                Permission.of("autoscaling.x-k8s.io", "provisioningrequests", "create"),
                Permission.of("autoscaling.x-k8s.io", "provisioningrequests", "delete"),
                Permission.of("", "podtemplates", "create"), Permission.of("", "podtemplates", "delete"),
                Permission.of("", "podtemplates", "deletecollection"));
        Set<Permission> on = new java.util.HashSet<>(Permission.expand(chart.ofKind("ClusterRole").stream()
                .filter(m -> m.name().equals("muster-extender")).findFirst().orElseThrow().body()));
        Set<Permission> off = Set.copyOf(Permission.expand(Chart.render(Install.with("extender.queueGate.enabled", true)).ofKind("ClusterRole").stream()
                .filter(m -> m.name().equals("muster-extender")).findFirst().orElseThrow().body()));
        on.removeAll(off);
        assertThat(on).as("what provisioning adds to the extender's ClusterRole, exactly").isEqualTo(provisioning);
        assertThat(Stream.concat(chart.ofKind("ClusterRole").stream(), chart.ofKind("Role").stream())
                .filter(role -> !role.name().equals("muster-extender")).flatMap(role -> Permission.expand(role.body()).stream()))
                .as("no other component may touch requests or templates").doesNotContainAnyElementsOf(provisioning);
        assertThat(Tree.strings(Chart.render(Install.defaults()).deployment("extender").container(), "args")).noneMatch(a -> a.startsWith("--provisioning"));
    }

    @Test
    void topologyLevelsReachTheExtenderInOrder() {
        Rendered chart = Chart.render(Install.with("extender.topologyLevels[0]", "topology.kubernetes.io/zone",
                "extender.topologyLevels[1]", "example.com/rack", "extender.topologyLevels[2]", "kubernetes.io/hostname"));
        assertThat(Tree.strings(chart.deployment("extender").container(), "args"))
                .contains("--topology-levels=topology.kubernetes.io/zone,example.com/rack,kubernetes.io/hostname");
    }

    @Test
    void gangDeadlineAndHttpTimeoutRenderAsGoDurations() {
        Rendered chart = Chart.render(Install.with("extender.gangDeadlineSeconds", 120, "scheduler.extender.httpTimeoutSeconds", 150));
        assertThat(Tree.strings(chart.deployment("extender").container(), "args")).contains("--gang-deadline=120s");
        assertThat(SchedulerConfigs.extenders(chart.schedulerConfig())).hasSize(2).allSatisfy(e -> assertThat(e).containsEntry("httpTimeout", "150s"));
    }

    @Test
    void byDefaultKubeSchedulerAndTheControllerReachTheExtenderWithCertificatesOfOneCaHelmMade() throws Exception {
        Rendered chart = Chart.render(Install.defaults());
        assertThat(SchedulerConfigs.extenders(chart.schedulerConfig())).hasSize(2).allSatisfy(extender -> {
            assertThat(extender).containsEntry("enableHTTPS", true).containsEntry("urlPrefix", "https://muster-extender.muster-system.svc:8888");
            assertThat(Tree.map(extender, "tlsConfig")).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "certFile", "/etc/muster/extender-client/tls.crt", "keyFile", "/etc/muster/extender-client/tls.key",
                    "caFile", "/etc/muster/extender-client/ca.crt"));
        });
        assertThat(Tree.string(volume(chart.deployment("scheduler"), "extender-client"), "secret", "secretName"))
                .isEqualTo("muster-scheduler-client-tls");

        assertThat(Tree.strings(chart.deployment("extender").container(), "args")).contains(
                "--tls-cert-file=/etc/muster/tls/tls.crt", "--tls-key-file=/etc/muster/tls/tls.key", "--tls-client-ca-file=/etc/muster/tls/ca.crt",
                "--grpc-tls-cert-file=/etc/muster/tls/tls.crt", "--grpc-tls-key-file=/etc/muster/tls/tls.key",
                "--grpc-tls-client-ca-file=/etc/muster/tls/ca.crt").doesNotContain("--" + ServerConfig.INSECURE);
        Map<String, Object> extenderTls = volume(chart.deployment("extender"), "tls");
        assertThat(Tree.string(extenderTls, "secret", "secretName")).isEqualTo("muster-extender-tls");
        assertThat(Tree.map(extenderTls, "secret")).as("the whole Secret as a directory, so renewals reach the files")
                .doesNotContainKey("items");
        assertThat(Tree.strings(chart.deployment("controller").container(), "args")).contains(
                "--extender-tls-ca-file=/etc/muster/extender-client/ca.crt",
                "--extender-tls-cert-file=/etc/muster/extender-client/tls.crt",
                "--extender-tls-key-file=/etc/muster/extender-client/tls.key");
        assertThat(Tree.string(volume(chart.deployment("controller"), "extender-client"), "secret", "secretName"))
                .isEqualTo("muster-controller-client-tls");

        // the four Secrets: one CA, each certificate signed by it and matching its key, its common name the identity
        // --tls-client-roles gives its caller; the extender's names its Service
        java.security.cert.CertificateFactory x509 = java.security.cert.CertificateFactory.getInstance("X.509");
        java.util.Set<String> cas = new java.util.HashSet<>();
        Map<String, String> identities = Map.of("muster-extender-tls", "CN=muster-extender.muster-system.svc",
                "muster-scheduler-client-tls", "CN=muster-scheduler", "muster-controller-client-tls", "CN=muster-controller",
                "muster-operator-client-tls", "CN=muster-operator");
        for (String name : identities.keySet()) {
            Manifest secret = chart.one("Secret", name);
            assertThat(Tree.string(secret.body(), "type")).isEqualTo("kubernetes.io/tls");
            Map<String, Object> data = Tree.map(secret.body(), "data");
            cas.add((String) data.get("ca.crt"));
            var ca = (java.security.cert.X509Certificate) x509.generateCertificate(new java.io.ByteArrayInputStream(decode(data, "ca.crt")));
            var cert = (java.security.cert.X509Certificate) x509.generateCertificate(new java.io.ByteArrayInputStream(decode(data, "tls.crt")));
            cert.verify(ca.getPublicKey());
            assertThat(cert.getSubjectX500Principal().getName()).isEqualTo(identities.get(name));
            assertThat(new String(decode(data, "tls.key"), java.nio.charset.StandardCharsets.US_ASCII)).contains("PRIVATE KEY");
            if (name.equals("muster-extender-tls")) {
                assertThat(cert.getSubjectAlternativeNames().stream().map(san -> String.valueOf(san.get(1))).toList())
                        .contains("muster-extender.muster-system.svc");
            }
        }
        assertThat(cas).as("one CA for all four").hasSize(1);
        assertThat(chart.ofKind("Certificate")).isEmpty();
    }

    @Test
    void theInsecureModeIsPlainHttpWithoutCertificatesAndTheFlagSaysSo() {
        Rendered chart = Chart.render(Install.with("tls.insecureUnauthenticatedVerbs", true));
        for (Manifest deployment : chart.ofKind("Deployment")) {
            assertThat(Tree.maps(deployment.podSpec(), "volumes")).as(deployment.id()).noneMatch(v -> v.containsKey("secret"));
        }
        assertThat(chart.ofKind("Secret")).isEmpty();
        assertThat(SchedulerConfigs.extenders(chart.schedulerConfig())).hasSize(2)
                .allSatisfy(e -> assertThat(e).containsEntry("enableHTTPS", false).doesNotContainKey("tlsConfig"));
        assertThat(Tree.strings(chart.deployment("extender").container(), "args")).contains("--" + ServerConfig.INSECURE + "=true")
                .noneMatch(a -> a.startsWith("--tls-") || a.startsWith("--grpc-tls-"));
        assertThat(Tree.strings(chart.deployment("controller").container(), "args")).noneMatch(a -> a.startsWith("--extender-tls-"));
    }

    @Test
    void certManagerIssuesTheSameSecretsFromOneCaIssuer() {
        Rendered own = Chart.render(Install.with("tls.source", "cert-manager"));
        assertThat(own.ofKind("Secret")).as("cert-manager writes them").isEmpty();
        assertThat(own.ofKind("Certificate").stream().map(Manifest::name)).containsExactlyInAnyOrder(
                "muster-ca", "muster-extender-tls", "muster-scheduler-client-tls", "muster-controller-client-tls", "muster-operator-client-tls");
        assertThat(own.ofKind("Issuer").stream().map(Manifest::name)).containsExactlyInAnyOrder("muster-selfsigned", "muster-ca");
        Manifest extender = own.one("Certificate", "muster-extender-tls");
        assertThat(extender.spec()).containsEntry("secretName", "muster-extender-tls");
        assertThat(Tree.strings(extender.spec(), "dnsNames")).contains("muster-extender.muster-system.svc");
        assertThat(Tree.strings(extender.spec(), "usages")).containsExactlyInAnyOrder("server auth", "client auth");
        assertThat(Tree.map(extender.spec(), "issuerRef")).containsEntry("name", "muster-ca");
        assertThat(extender.spec()).containsEntry("commonName", "muster-extender.muster-system.svc");
        for (String client : List.of("scheduler", "controller", "operator")) { // client-only, each its own identity
            Manifest c = own.one("Certificate", "muster-" + client + "-client-tls");
            assertThat(Tree.strings(c.spec(), "usages")).as(client).containsExactly("client auth");
            assertThat(c.spec()).containsEntry("commonName", "muster-" + client);
        }

        Rendered corp = Chart.render(Install.with("tls.source", "cert-manager", "tls.certManager.issuerRef.name", "corp-ca",
                "tls.certManager.issuerRef.kind", "ClusterIssuer"));
        assertThat(corp.ofKind("Issuer")).isEmpty();
        assertThat(corp.ofKind("Certificate")).hasSize(4).allSatisfy(c -> assertThat(Tree.map(c.spec(), "issuerRef"))
                .containsEntry("name", "corp-ca").containsEntry("kind", "ClusterIssuer"));
    }

    @Test
    void theNetworkPolicyLetsOnlyKubeSchedulerReachTheVerbsOnlyTheControllerTheStreamAndOnlyTheGivenPeersTheMetrics() {
        Rendered chart = Chart.render(Install.with("extender.httpPort", 9443, "extender.grpcPort", 9444, "extender.opsPort", 9445));
        Manifest policy = chart.one("NetworkPolicy", "muster-extender");
        assertThat(Tree.map(policy.spec(), "podSelector", "matchLabels")).isEqualTo(chart.deployment("extender").podLabels().entrySet().stream()
                .filter(e -> Tree.map(policy.spec(), "podSelector", "matchLabels").containsKey(e.getKey()))
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
        assertThat(Tree.strings(policy.spec(), "policyTypes")).containsExactly("Ingress");
        List<Map<String, Object>> rules = Tree.maps(policy.spec(), "ingress");
        assertThat(rules).as("no pod reaches the ops port by default: the kubelet's probes come from the node").hasSize(2);
        assertThat(allowedComponents(chart, rules.get(0))).containsExactlyInAnyOrder("scheduler", "extender"); // standbys forward
        assertThat(ports(rules.get(0))).containsExactly(9443);
        assertThat(allowedComponents(chart, rules.get(1))).containsExactly("controller");
        assertThat(ports(rules.get(1))).containsExactly(9444);

        Map<String, Object> monitoring = Map.of("namespaceSelector", Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", "monitoring")));
        Rendered scraped = Chart.render(Install.with("extender.opsPort", 9445,
                "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name", "monitoring"));
        List<Map<String, Object>> withMetrics = Tree.maps(scraped.one("NetworkPolicy", "muster-extender").spec(), "ingress");
        assertThat(withMetrics).hasSize(3);
        assertThat(Tree.maps(withMetrics.get(2), "from")).as("only the peers given scrape /metrics").containsExactly(monitoring);
        assertThat(ports(withMetrics.get(2))).containsExactly(9445);

        assertThat(Chart.render(Install.with("networkPolicy.enabled", false)).ofKind("NetworkPolicy")).isEmpty();
    }

    /**
     * kube-scheduler reads its CA file only at start (its certificate and key again on new connections): its pod
     * template carries a checksum of the ca.crt this very render writes, so a render that makes a new CA (no cluster to
     * look it up in: helm template, a GitOps renderer, keepGenerated false; or a rotation stage) changes it, and one
     * that keeps it would not.
     */
    @Test
    void kubeSchedulerIsRestartedByAChecksumOfTheCaThisRenderWrites() throws Exception {
        for (Install install : List.of(Install.defaults(), Install.with("scheduler.replicas", 3))) { // two renders, two CAs
            Rendered chart = Chart.render(install);
            Map<String, Object> data = Tree.map(chart.one("Secret", "muster-scheduler-client-tls").body(), "data");
            String expected = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(((String) data.get("ca.crt")).getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            assertThat(Tree.map(chart.deployment("scheduler").body(), "spec", "template", "metadata", "annotations"))
                    .containsEntry("checksum/extender-ca", expected);
            assertThat(Tree.string(chart.deployment("scheduler").body(), "spec", "strategy", "type"))
                    .as("old kube-schedulers, which trust only the old CA, stop before new ones start").isEqualTo("Recreate");
        }
        assertThat(Tree.map(Chart.render(Install.with("tls.source", "cert-manager")).deployment("scheduler").body(), "spec", "template",
                "metadata", "annotations")).doesNotContainKey("checksum/extender-ca");
    }

    @Test
    void withTlsOnTheControllersQueuesApiOnlyTheOperatorsCertificateIsServed() {
        Rendered chart = Chart.render(Install.with("controller.grpcTls.enabled", true));
        assertThat(Tree.strings(chart.deployment("controller").container(), "args")).contains(
                "--grpc-tls-client-ca-file=/etc/muster/grpc-tls/ca.crt", "--tls-client-roles=operator=muster-operator");
        assertThat(Tree.strings(Chart.render(Install.defaults()).deployment("controller").container(), "args"))
                .noneMatch(a -> a.startsWith("--tls-client-roles"));
    }

    @Test
    void theExtenderMayChangeOnlyItsOwnPodConditionThroughPodsStatus() {
        Rendered chart = Chart.render(Install.with("extender.serviceAccount.name", "sched-ext").in("gangs", "batch"));
        Manifest policy = chart.one("ValidatingAdmissionPolicy", "gangs-muster-extender-pod-status");
        assertThat(Tree.string(policy.spec(), "failurePolicy")).isEqualTo("Fail");
        Map<String, Object> rule = Tree.maps(policy.spec(), "matchConstraints", "resourceRules").getFirst();
        assertThat(Tree.strings(rule, "resources")).containsExactly("pods/status");
        assertThat(Tree.strings(rule, "operations")).containsExactly("UPDATE"); // a PATCH is admitted as an UPDATE
        assertThat(Tree.maps(policy.spec(), "matchConditions")).singleElement().satisfies(m -> assertThat(m.get("expression"))
                .isEqualTo("request.userInfo.username == 'system:serviceaccount:batch:sched-ext'"));
        assertThat(Tree.maps(policy.spec(), "variables")).allSatisfy(v -> assertThat((String) v.get("expression"))
                .contains("c.type != 'muster.dev/Retry'"));
        assertThat(Tree.maps(policy.spec(), "validations")).hasSize(3).allSatisfy(v -> assertThat(v).containsEntry("reason", "Forbidden"));
        Manifest binding = chart.one("ValidatingAdmissionPolicyBinding", "gangs-muster-extender-pod-status");
        assertThat(binding.spec()).containsEntry("policyName", "gangs-muster-extender-pod-status");
        assertThat(Tree.strings(binding.spec(), "validationActions")).containsExactly("Deny");
    }

    /** The components whose pods a rule's {@code from} peers select (each peer must select exactly one Deployment's pods). */
    private static List<String> allowedComponents(Rendered chart, Map<String, Object> rule) {
        return Tree.maps(rule, "from").stream().map(peer -> {
            assertThat(peer).containsOnlyKeys("podSelector"); // same namespace only
            Map<String, Object> selector = Tree.map(peer, "podSelector", "matchLabels");
            List<String> selected = chart.ofKind("Deployment").stream()
                    .filter(d -> d.podLabels().entrySet().containsAll(selector.entrySet()))
                    .map(d -> (String) d.podLabels().get("app.kubernetes.io/component")).toList();
            assertThat(selected).as("pods selected by %s", selector).hasSize(1);
            return selected.getFirst();
        }).toList();
    }

    private static List<Integer> ports(Map<String, Object> rule) {
        return Tree.maps(rule, "ports").stream().map(p -> (Integer) p.get("port")).toList();
    }

    private static byte[] decode(Map<String, Object> data, String key) {
        return java.util.Base64.getDecoder().decode((String) data.get(key));
    }

    static Stream<Named<Install>> renamedInstalls() {
        return Stream.of(
                Named.of("release without the chart name", Install.defaults().in("prod", "batch")),
                Named.of("fullnameOverride", Install.with("fullnameOverride", "gang").in("x", "batch")),
                Named.of("nameOverride", Install.with("nameOverride", "gs").in("prod", "batch")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renamedInstalls")
    void objectNamesAndTheExtenderUrlFollowTheRelease(Install install) {
        Rendered chart = Chart.render(install);
        String prefix = install.values().containsKey("fullnameOverride") ? "gang"
                : install.values().containsKey("nameOverride") ? "prod-gs" : "prod-muster";
        assertThat(chart.ofKind("Deployment").stream().map(Manifest::name))
                .containsExactlyInAnyOrder(prefix + "-scheduler", prefix + "-extender", prefix + "-controller");
        assertThat(SchedulerConfigs.extenders(chart.schedulerConfig())).hasSize(2)
                .allSatisfy(e -> assertThat(e).containsEntry("urlPrefix", "https://" + prefix + "-extender.batch.svc:8888"));
        assertThat(chart.ofKind("MutatingAdmissionPolicy").stream().map(Manifest::name)).containsExactly(prefix + "-gang-marker");
        for (Manifest m : chart.manifests()) {
            if (CLUSTER_SCOPED.contains(m.kind())) {
                assertThat(Tree.map(m.body(), "metadata")).as(m.id()).doesNotContainKey("namespace");
            } else {
                assertThat(Tree.string(m.body(), "metadata", "namespace")).as(m.id()).isEqualTo("batch");
            }
        }
    }

    @Test
    void customSchedulerNameReachesProfileExtenderAndGangMarkerPolicy() {
        Rendered chart = Chart.render(Install.with("scheduler.name", "gang"));
        assertThat(Tree.maps(chart.schedulerConfig(), "profiles").get(0)).containsEntry("schedulerName", "gang");
        assertThat(Tree.strings(chart.deployment("extender").container(), "args")).contains("--scheduler-name=gang");
        Manifest policy = GangMarkerPolicy.only(chart.manifests(), GangMarkerPolicy.POLICY);
        assertThat(GangMarkerPolicy.condition(policy, GangMarkerPolicy.SCHEDULER_CONDITION))
                .isEqualTo("object.spec.schedulerName == 'gang'");
    }

    @Test
    void byDefaultKubeSchedulerBindsOnlyMarkedPodsThroughMuster() {
        Rendered chart = Chart.render(Install.defaults());
        Map<String, Object> config = chart.schedulerConfig();
        assertThat(SchedulerConfigs.extenders(config)).hasSize(2);
        assertThat(SchedulerConfigs.filterExtender(config)).doesNotContainKeys("bindVerb", "managedResources");
        assertThat(SchedulerConfigs.bindExtender(config)).containsEntry("bindVerb", "bind").doesNotContainKeys("filterVerb", "preemptVerb");
        assertThat(Tree.maps(SchedulerConfigs.bindExtender(config), "managedResources"))
                .containsExactly(Map.of("name", "muster.dev/gang", "ignoredByScheduler", true));
        assertThat(chart.ofKind("MutatingAdmissionPolicy").stream().map(Manifest::name)).containsExactly("muster-gang-marker");
        assertThat(chart.ofKind("MutatingAdmissionPolicyBinding").stream().map(Manifest::name)).containsExactly("muster-gang-marker");
        assertThat(Tree.strings(chart.deployment("extender").container(), "args")).contains("--gang-marker=true");
    }

    @Test
    void gangMarkerOffRestoresTheOneExtenderThatBindsEveryPodAndRendersNoPolicy() {
        Rendered chart = Chart.render(Install.with("extender.gangMarker", false));
        Map<String, Object> extender = SchedulerConfigs.onlyExtender(chart.schedulerConfig());
        assertThat(extender).containsEntry("filterVerb", "filter").containsEntry("bindVerb", "bind").containsEntry("preemptVerb", "preempt")
                .containsEntry("ignorable", false).doesNotContainKey("managedResources");
        assertThat(chart.ofKind("MutatingAdmissionPolicy")).isEmpty();
        assertThat(chart.ofKind("MutatingAdmissionPolicyBinding")).isEmpty();
        assertThat(Tree.strings(chart.deployment("extender").container(), "args")).contains("--gang-marker=false")
                .doesNotContain("--gang-marker=true");
        assertThat(ServerConfig.FLAGS).as("a flag the extender accepts").containsKey("gang-marker");
    }

    @Test
    void percentageOfNodesToScoreIsLeftToKubeSchedulerUnlessSet() {
        assertThat(Tree.maps(Chart.render(Install.defaults()).schedulerConfig(), "profiles").get(0))
                .doesNotContainKey("percentageOfNodesToScore");
        assertThat(Tree.maps(Chart.render(Install.with("scheduler.percentageOfNodesToScore", 50)).schedulerConfig(), "profiles").get(0))
                .containsEntry("percentageOfNodesToScore", 50);
    }

    @Test
    void singlePodsAreScoredByKubeSchedulerWithTheStrategyOfTheExtendersScoring() {
        for (var c : List.of(List.of("binpack", "MostAllocated"), List.of("spread", "LeastAllocated"))) {
            Map<String, Object> profile = Tree.maps(Chart.render(Install.with("extender.scoring", c.get(0))).schedulerConfig(), "profiles").get(0);
            Map<String, Object> fit = Tree.maps(profile, "pluginConfig").get(0);
            assertThat(fit).containsEntry("name", "NodeResourcesFit");
            assertThat(Tree.string(fit, "args", "scoringStrategy", "type")).as("scoring %s", c.get(0)).isEqualTo(c.get(1));
        }
    }

    @Test
    void thePrioritizeVerbAndItsWeightAreRenderedOnlyWhenAskedFor() {
        assertThat(SchedulerConfigs.extenders(Chart.render(Install.defaults()).schedulerConfig()))
                .allSatisfy(e -> assertThat(e).doesNotContainKeys("prioritizeVerb", "weight"));
        Map<String, Object> scored = Chart.render(Install.with("scheduler.extender.prioritize", true,
                "scheduler.extender.weight", 7)).schedulerConfig();
        assertThat(SchedulerConfigs.filterExtender(scored)).containsEntry("prioritizeVerb", "prioritize").containsEntry("weight", 7);
        assertThat(SchedulerConfigs.bindExtender(scored)).as("the bind entry scores nothing").doesNotContainKeys("prioritizeVerb", "weight");
        assertThat(SchedulerConfigs.onlyExtender(Chart.render(Install.with("extender.gangMarker", false,
                "scheduler.extender.prioritize", true, "scheduler.extender.weight", 7)).schedulerConfig()))
                .containsEntry("prioritizeVerb", "prioritize").containsEntry("weight", 7).containsEntry("bindVerb", "bind");
    }

    @Test
    void schedulerPodsRollWhenTheirConfigChanges() {
        String before = configChecksum(Chart.render(Install.defaults()));
        String after = configChecksum(Chart.render(Install.with("scheduler.extender.prioritize", true)));
        assertThat(before).isNotBlank().isNotEqualTo(after);
        assertThat(configChecksum(Chart.render(Install.with("extender.gangMarker", false)))).isNotEqualTo(before);
        assertThat(configChecksum(Chart.render(Install.with("extender.replicas", 1)))).isEqualTo(before);
    }

    @Test
    void optionalObjectsCanBeTurnedOff() {
        Rendered chart = Chart.render(Install.with(
                "defaultQueue.create", false,
                "scheduler.podDisruptionBudget.enabled", false,
                "extender.podDisruptionBudget.enabled", false,
                "controller.podDisruptionBudget.enabled", false));
        assertThat(chart.ofKind("Queue")).isEmpty();
        assertThat(chart.ofKind("PodDisruptionBudget")).isEmpty();
    }

    @Test
    void placementValuesReachThePods() {
        Rendered chart = Chart.render(Install.with(
                "extender.nodeSelector.pool", "system",
                "extender.priorityClassName", "system-cluster-critical",
                "imagePullSecrets[0].name", "regcred",
                "controller.javaToolOptions", "-Xss512k"));
        Map<String, Object> pod = chart.deployment("extender").podSpec();
        assertThat(Tree.map(pod, "nodeSelector")).containsEntry("pool", "system");
        assertThat(pod).containsEntry("priorityClassName", "system-cluster-critical");
        assertThat(Tree.maps(pod, "imagePullSecrets")).containsExactly(Map.of("name", "regcred"));
        assertThat(Tree.map(pod, "affinity", "podAntiAffinity")).as("default: replicas prefer different nodes").isNotEmpty();
        assertThat(javaToolOptions(chart.deployment("controller"))).hasValue("-Xss512k");
    }

    @Test
    void theImagesClassDataArchiveIsMappedByDefaultAndCanBeTurnedOff() {
        Rendered chart = Chart.render(Install.defaults());
        for (String component : List.of("extender", "controller")) {
            Manifest d = chart.deployment(component);
            assertThat(javaToolOptions(d).orElse("")).as(component + ": the entrypoint maps the archive").doesNotContain("-Xshare");
            assertThat(Tree.maps(d.podSpec(), "volumes")).as(component + ": the archive is in the image, no volume")
                    .extracting(v -> v.get("name")).doesNotContain("cds", "jsa").contains("tmp");
        }
        Rendered off = Chart.render(Install.with("extender.classDataArchive", false, "controller.classDataArchive", false,
                "controller.javaToolOptions", "-Xss512k"));
        assertThat(javaToolOptions(off.deployment("extender"))).hasValue("-Xshare:off -XX:CompilationMode=quick-only -XX:CompileThresholdScaling=0.1 -XX:+UseSerialGC");
        assertThat(javaToolOptions(off.deployment("controller"))).hasValue("-Xshare:off -Xss512k");
    }

    @Test
    void theExtenderCompilesWithC1AloneByDefaultTheControllerWithBothCompilers() {
        Rendered chart = Chart.render(Install.defaults());
        assertThat(javaToolOptions(chart.deployment("extender"))).as("C1 alone, compiling early")
                .hasValue("-XX:CompilationMode=quick-only -XX:CompileThresholdScaling=0.1 -XX:+UseSerialGC");
        assertThat(javaToolOptions(chart.deployment("controller"))).as("the JVM's own tiered compilation: nothing to say").isEmpty();

        Rendered swapped = Chart.render(Install.with("extender.compilationMode", "default", "extender.garbageCollector", "default",
                "controller.compilationMode", "quick-only", "controller.javaToolOptions", "-XX:CompilationMode=default"));
        assertThat(javaToolOptions(swapped.deployment("extender"))).isEmpty();
        assertThat(javaToolOptions(swapped.deployment("controller"))).as("javaToolOptions come last, so a flag there wins")
                .hasValue("-XX:CompilationMode=quick-only -XX:CompileThresholdScaling=0.1 -XX:CompilationMode=default");
    }

    @Test
    void theExtenderCollectsWithSerialGcByDefaultAndEachComponentMayNameItsCollector() {
        Rendered chart = Chart.render(Install.defaults());
        assertThat(javaToolOptions(chart.deployment("extender")).orElse("")).contains("-XX:+UseSerialGC");
        assertThat(javaToolOptions(chart.deployment("controller")).orElse("")).as("the JVM's own choice").doesNotContain("GC");

        for (String[] gc : new String[][] {{"serial", "-XX:+UseSerialGC"}, {"g1", "-XX:+UseG1GC"}, {"parallel", "-XX:+UseParallelGC"}}) {
            Rendered chosen = Chart.render(Install.with("extender.garbageCollector", gc[0], "controller.garbageCollector", gc[0]));
            for (String component : List.of("extender", "controller")) {
                List<String> flags = List.of(javaToolOptions(chosen.deployment(component)).orElse("").split(" "));
                assertThat(flags).as(component + " " + gc[0]).contains(gc[1]).filteredOn(f -> f.startsWith("-XX:+Use") && f.endsWith("GC"))
                        .hasSize(1);
            }
        }
    }

    /** The container's JAVA_TOOL_OPTIONS; empty when the chart sets none. */
    private static Optional<String> javaToolOptions(Manifest deployment) {
        return Tree.maps(deployment.container(), "env").stream().filter(e -> "JAVA_TOOL_OPTIONS".equals(e.get("name")))
                .map(e -> (String) e.get("value")).findFirst();
    }

    private static String configChecksum(Rendered chart) {
        return Tree.string(chart.deployment("scheduler").body(), "spec", "template", "metadata", "annotations", "checksum/config");
    }

    private static Map<String, Object> volume(Manifest deployment, String name) {
        return Tree.maps(deployment.podSpec(), "volumes").stream().filter(v -> name.equals(v.get("name"))).findFirst()
                .orElseThrow(() -> new AssertionError(deployment.id() + " has no volume " + name));
    }
}
